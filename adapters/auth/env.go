package auth

import (
	"fmt"
	"net/netip"
	"os"
	"strings"
	"time"
)

// Environment variables read by [ConfigFromEnv]. The client secret may be
// given directly or, better, as a file (a mounted secret).
const (
	EnvMode             = "KEYGATE_AUTH_MODE" // local (default), header, oidc
	EnvUserHeader       = "KEYGATE_AUTH_USER_HEADER"
	EnvNameHeader       = "KEYGATE_AUTH_NAME_HEADER"
	EnvGroupsHeader     = "KEYGATE_AUTH_GROUPS_HEADER"
	EnvTrustedProxies   = "KEYGATE_AUTH_TRUSTED_PROXIES" // comma-separated CIDRs
	EnvAdminGroups      = "KEYGATE_AUTH_ADMIN_GROUPS"    // comma-separated
	EnvMemberGroups     = "KEYGATE_AUTH_MEMBER_GROUPS"   // comma-separated; empty admits everyone
	EnvSessionTTL       = "KEYGATE_AUTH_SESSION_TTL"     // Go duration, e.g. 8h
	EnvIssuer           = "KEYGATE_OIDC_ISSUER"
	EnvClientID         = "KEYGATE_OIDC_CLIENT_ID"
	EnvClientSecret     = "KEYGATE_OIDC_CLIENT_SECRET"
	EnvClientSecretFile = "KEYGATE_OIDC_CLIENT_SECRET_FILE"
	EnvRedirectURL      = "KEYGATE_OIDC_REDIRECT_URL"
	EnvScopes           = "KEYGATE_OIDC_SCOPES" // comma-separated
	EnvUserClaim        = "KEYGATE_OIDC_USER_CLAIM"
	EnvNameClaim        = "KEYGATE_OIDC_NAME_CLAIM"
	EnvGroupsClaim      = "KEYGATE_OIDC_GROUPS_CLAIM"
)

// ConfigFromEnv reads a Config from the environment. It checks syntax
// only; [New] checks that the mode has what it needs. Errors never quote
// the client secret.
func ConfigFromEnv(getenv func(string) string) (Config, error) {
	c := Config{
		Mode:       Mode(strings.ToLower(strings.TrimSpace(getenv(EnvMode)))),
		UserHeader: getenv(EnvUserHeader), NameHeader: getenv(EnvNameHeader), GroupsHeader: getenv(EnvGroupsHeader),
		Issuer: getenv(EnvIssuer), ClientID: getenv(EnvClientID), ClientSecret: getenv(EnvClientSecret),
		RedirectURL: getenv(EnvRedirectURL), Scopes: list(getenv(EnvScopes)),
		UserClaim: getenv(EnvUserClaim), NameClaim: getenv(EnvNameClaim), GroupsClaim: getenv(EnvGroupsClaim),
	}
	if c.Mode == "" {
		c.Mode = ModeLocal
	}
	c.Roles.AdminGroups, c.Roles.MemberGroups = list(getenv(EnvAdminGroups)), list(getenv(EnvMemberGroups))
	for _, s := range list(getenv(EnvTrustedProxies)) {
		p, err := netip.ParsePrefix(s)
		if err != nil {
			return c, fmt.Errorf("%s: %w", EnvTrustedProxies, err)
		}
		c.TrustedProxies = append(c.TrustedProxies, p)
	}
	if v := getenv(EnvSessionTTL); v != "" {
		d, err := time.ParseDuration(v)
		if err != nil {
			return c, fmt.Errorf("%s: %w", EnvSessionTTL, err)
		}
		c.SessionTTL = d
	}
	if f := getenv(EnvClientSecretFile); f != "" {
		b, err := os.ReadFile(f)
		if err != nil {
			return c, fmt.Errorf("%s: %w", EnvClientSecretFile, err)
		}
		c.ClientSecret = strings.TrimSpace(string(b))
	}
	return c, nil
}

func list(v string) []string {
	var out []string
	for _, s := range strings.Split(v, ",") {
		if s = strings.TrimSpace(s); s != "" {
			out = append(out, s)
		}
	}
	return out
}
