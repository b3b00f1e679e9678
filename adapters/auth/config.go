package auth

import (
	"errors"
	"fmt"
	"net/netip"
	"time"

	"keygate/domain/access"
)

// Mode selects how callers are authenticated.
type Mode string

// The modes; see the package documentation.
const (
	ModeLocal  Mode = "local"
	ModeHeader Mode = "header"
	ModeOIDC   Mode = "oidc"
)

// Config configures a [Gate]. Zero values of optional fields take the
// defaults documented on them.
type Config struct {
	Mode Mode

	// Header mode. UserHeader names the user id header (required);
	// NameHeader and GroupsHeader are optional. Groups are comma-separated.
	UserHeader, NameHeader, GroupsHeader string
	// TrustedProxies are the only peers whose headers are believed.
	TrustedProxies []netip.Prefix

	// OIDC mode. RedirectURL is Keygate's public .../auth/callback URL.
	Issuer, ClientID, ClientSecret, RedirectURL string
	// Scopes default to openid, profile, email, groups.
	Scopes []string
	// UserClaim (default "sub") becomes the user id, NameClaim (default
	// "email") the display name, GroupsClaim (default "groups") the groups.
	UserClaim, NameClaim, GroupsClaim string

	// Roles maps groups to roles (header and OIDC modes).
	Roles access.RoleMap
	// SessionTTL bounds a session (default 12 hours).
	SessionTTL time.Duration
}

// ErrConfig: the configuration cannot work; the message says why.
var ErrConfig = errors.New("invalid authentication configuration")

func (c Config) withDefaults() (Config, error) {
	if c.SessionTTL <= 0 {
		c.SessionTTL = 12 * time.Hour
	}
	if len(c.Scopes) == 0 {
		c.Scopes = []string{"openid", "profile", "email", "groups"}
	}
	if c.UserClaim == "" {
		c.UserClaim = "sub"
	}
	if c.NameClaim == "" {
		c.NameClaim = "email"
	}
	if c.GroupsClaim == "" {
		c.GroupsClaim = "groups"
	}
	switch c.Mode {
	case ModeLocal:
	case ModeHeader:
		if c.UserHeader == "" || len(c.TrustedProxies) == 0 {
			return c, fmt.Errorf("%w: header mode needs a user header and trusted proxy CIDRs", ErrConfig)
		}
	case ModeOIDC:
		if c.Issuer == "" || c.ClientID == "" || c.RedirectURL == "" {
			return c, fmt.Errorf("%w: oidc mode needs an issuer, a client id and a redirect URL", ErrConfig)
		}
	default:
		return c, fmt.Errorf("%w: unknown mode %q (local, header, oidc)", ErrConfig, c.Mode)
	}
	return c, nil
}
