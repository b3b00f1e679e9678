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
	// Mode selects how callers are authenticated; empty is ModeLocal.
	Mode Mode

	// Header mode. UserHeader names the user id header (required);
	// NameHeader and GroupsHeader are optional. Groups are comma-separated.
	UserHeader, NameHeader, GroupsHeader string
	// TrustedProxies are the only peers whose headers are believed. New
	// refuses a range wider than the widest private block of its family
	// (see [MaxTrustedPrefix]); an IPv4-mapped IPv6 range
	// (::ffff:10.0.0.0/104) stands for its IPv4 range.
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

// ErrConfig means the configuration cannot work; the message says why.
var ErrConfig = errors.New("invalid authentication configuration")

// The widest trusted proxy ranges New accepts, in prefix bits: those of the
// widest private blocks, 10.0.0.0/8 and fc00::/7. Whoever a trusted range
// covers may claim any identity with a header, so it should name the
// authenticating proxies; a whole private network is already generous, and
// anything wider necessarily spans public addresses as well (0.0.0.0/0 and
// ::/0, the usual copy-paste, span everything): surely a mistake.
const (
	MaxTrustedPrefix4 = 8
	MaxTrustedPrefix6 = 7
)

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
	if c.Mode == "" {
		c.Mode = ModeLocal
	}
	switch c.Mode {
	case ModeLocal:
	case ModeHeader:
		if c.UserHeader == "" || len(c.TrustedProxies) == 0 {
			return c, fmt.Errorf("%w: header mode needs a user header and trusted proxy CIDRs", ErrConfig)
		}
		trusted, err := trustedRanges(c.TrustedProxies)
		if err != nil {
			return c, err
		}
		c.TrustedProxies = trusted
	case ModeOIDC:
		if c.Issuer == "" || c.ClientID == "" || c.RedirectURL == "" {
			return c, fmt.Errorf("%w: oidc mode needs an issuer, a client id and a redirect URL", ErrConfig)
		}
	default:
		return c, fmt.Errorf("%w: unknown mode %q (local, header, oidc)", ErrConfig, c.Mode)
	}
	return c, nil
}

// trustedRanges returns the trusted proxy ranges masked, with IPv4-mapped
// ranges turned into the IPv4 ranges they stand for (peers are compared
// unmapped), or an error naming the first range that is too wide.
func trustedRanges(in []netip.Prefix) ([]netip.Prefix, error) {
	out := make([]netip.Prefix, 0, len(in))
	for _, p := range in {
		if !p.IsValid() {
			return nil, fmt.Errorf("%w: invalid trusted proxy range %q", ErrConfig, p)
		}
		q := p.Masked()
		if q.Addr().Is4In6() && q.Bits() >= 96 {
			q = netip.PrefixFrom(q.Addr().Unmap(), q.Bits()-96)
		}
		limit := MaxTrustedPrefix6
		if q.Addr().Is4() {
			limit = MaxTrustedPrefix4
		}
		if q.Bits() < limit {
			what := "spans public addresses as well as private ones"
			if q.Bits() == 0 {
				what = "covers every address"
			}
			return nil, fmt.Errorf("%w: trusted proxy range %s %s, so anyone who reaches Keygate from there could sign in as anyone by sending a header; "+
				"list only the addresses of your authenticating proxies (no range wider than /%d for IPv4 or /%d for IPv6)",
				ErrConfig, p, what, MaxTrustedPrefix4, MaxTrustedPrefix6)
		}
		out = append(out, q)
	}
	return out, nil
}

// Check reports what New would refuse in c's sign-in settings (a mode
// without what it needs, a trusted proxy range that is too wide), without
// contacting an identity provider: keygate doctor runs it.
func (c Config) Check() error {
	_, err := c.withDefaults()
	return err
}
