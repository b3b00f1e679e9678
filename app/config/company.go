package config

import (
	"errors"
	"flag"
	"fmt"
	"net/netip"
	"net/url"
	"os"
	"path"
	"strings"
	"time"
)

// Auth configures console sign-in (adapters/auth): local, trusted identity
// headers, or OIDC single sign-on. Load checks the syntax of each value;
// the sign-in gate checks that the chosen mode has what it needs.
type Auth struct {
	// Mode is "local" (also when empty: loopback, no login), "header" or
	// "oidc".
	Mode string
	// UserHeader names the user id header of header mode; NameHeader and
	// GroupsHeader (comma-separated groups) are optional.
	UserHeader, NameHeader, GroupsHeader string
	// TrustedProxies are the only peers whose identity headers are
	// believed.
	TrustedProxies []netip.Prefix
	// AdminGroups and MemberGroups map groups to roles; without member
	// groups every signed-in user is a member.
	AdminGroups, MemberGroups []string
	// SessionTTL bounds a console session; zero is the gate's default.
	SessionTTL time.Duration
	// Issuer, ClientID and RedirectURL (Keygate's public .../auth/callback
	// URL) configure OIDC.
	Issuer, ClientID, RedirectURL string
	// ClientSecret is the OIDC client secret: from the environment, or
	// read at Load from the file EnvOIDCClientSecretFile names, which wins.
	// It is never a flag.
	ClientSecret string
	// Scopes and the claims naming the user, their display name and their
	// groups take the gate's defaults when empty.
	Scopes                            []string
	UserClaim, NameClaim, GroupsClaim string
}

// Secrets name the keyring that seals provider keys and console sessions.
// With neither Key nor KeyFile the key is a file generated in the data
// directory (a laptop). Key values come from the environment only.
type Secrets struct {
	// Key is the secret key as base64 text; KeyFile names a file holding
	// it (a mounted secret). Key wins.
	Key, KeyFile string
	// PreviousKeys (base64) and PreviousKeyFile still open what an older
	// key sealed, while a rotation rolls out.
	PreviousKeys    []string
	PreviousKeyFile string
}

// Environment variables of sign-in, the keyring and tracing.
const (
	EnvAuthMode           = "KEYGATE_AUTH_MODE" // local (default), header, oidc
	EnvAuthUserHeader     = "KEYGATE_AUTH_USER_HEADER"
	EnvAuthNameHeader     = "KEYGATE_AUTH_NAME_HEADER"
	EnvAuthGroupsHeader   = "KEYGATE_AUTH_GROUPS_HEADER"
	EnvAuthTrustedProxies = "KEYGATE_AUTH_TRUSTED_PROXIES" // comma-separated CIDRs
	EnvAuthAdminGroups    = "KEYGATE_AUTH_ADMIN_GROUPS"    // comma-separated
	EnvAuthMemberGroups   = "KEYGATE_AUTH_MEMBER_GROUPS"   // comma-separated; empty admits everyone
	EnvAuthSessionTTL     = "KEYGATE_AUTH_SESSION_TTL"     // Go duration, e.g. 8h
	EnvOIDCIssuer         = "KEYGATE_OIDC_ISSUER"
	EnvOIDCClientID       = "KEYGATE_OIDC_CLIENT_ID"
	// EnvOIDCClientSecret is a secret: environment only, never logged.
	EnvOIDCClientSecret     = "KEYGATE_OIDC_CLIENT_SECRET"
	EnvOIDCClientSecretFile = "KEYGATE_OIDC_CLIENT_SECRET_FILE"
	EnvOIDCRedirectURL      = "KEYGATE_OIDC_REDIRECT_URL"
	EnvOIDCScopes           = "KEYGATE_OIDC_SCOPES" // comma-separated
	EnvOIDCUserClaim        = "KEYGATE_OIDC_USER_CLAIM"
	EnvOIDCNameClaim        = "KEYGATE_OIDC_NAME_CLAIM"
	EnvOIDCGroupsClaim      = "KEYGATE_OIDC_GROUPS_CLAIM"

	// EnvSecretKey and EnvSecretPreviousKeys (comma-separated base64) are
	// secrets: environment only, never logged.
	EnvSecretKey             = "KEYGATE_SECRET_KEY"
	EnvSecretKeyFile         = "KEYGATE_SECRET_KEY_FILE"
	EnvSecretPreviousKeys    = "KEYGATE_SECRET_PREVIOUS_KEYS"
	EnvSecretPreviousKeyFile = "KEYGATE_SECRET_PREVIOUS_KEY_FILE"

	// EnvOTLPEndpoint and EnvOTLPTracesEndpoint are OpenTelemetry's standard
	// variables; either one turns tracing on (see Config.TracesURL).
	EnvOTLPEndpoint       = "OTEL_EXPORTER_OTLP_ENDPOINT"
	EnvOTLPTracesEndpoint = "OTEL_EXPORTER_OTLP_TRACES_ENDPOINT"
)

// companyRaw holds the settings that are parsed once flags are read.
type companyRaw struct {
	trustedProxies, sessionTTL, clientSecretFile string
}

// loadCompany reads sign-in, keyring and tracing settings from the
// environment into cfg and registers the flags of those that are not
// secrets on fs; finish parses what must wait for the flags.
func loadCompany(cfg *Config, getenv func(string) string, fs *flag.FlagSet) (finish func() []error) {
	a := &cfg.Auth
	var raw companyRaw
	envString(getenv, EnvAuthMode, &a.Mode)
	envString(getenv, EnvAuthUserHeader, &a.UserHeader)
	envString(getenv, EnvAuthNameHeader, &a.NameHeader)
	envString(getenv, EnvAuthGroupsHeader, &a.GroupsHeader)
	envString(getenv, EnvAuthTrustedProxies, &raw.trustedProxies)
	a.AdminGroups, a.MemberGroups = splitList(getenv(EnvAuthAdminGroups)), splitList(getenv(EnvAuthMemberGroups))
	envString(getenv, EnvAuthSessionTTL, &raw.sessionTTL)
	envString(getenv, EnvOIDCIssuer, &a.Issuer)
	envString(getenv, EnvOIDCClientID, &a.ClientID)
	envString(getenv, EnvOIDCClientSecret, &a.ClientSecret)
	envString(getenv, EnvOIDCClientSecretFile, &raw.clientSecretFile)
	envString(getenv, EnvOIDCRedirectURL, &a.RedirectURL)
	a.Scopes = splitList(getenv(EnvOIDCScopes))
	envString(getenv, EnvOIDCUserClaim, &a.UserClaim)
	envString(getenv, EnvOIDCNameClaim, &a.NameClaim)
	envString(getenv, EnvOIDCGroupsClaim, &a.GroupsClaim)

	cfg.Secrets = SecretsFromEnv(getenv)
	s := &cfg.Secrets

	cfg.TracesURL = tracesURL(getenv)

	fs.StringVar(&a.Mode, "auth-mode", a.Mode, "console sign-in: local, header or oidc (env "+EnvAuthMode+")")
	fs.StringVar(&a.UserHeader, "auth-user-header", a.UserHeader, "header mode: the header naming the user (env "+EnvAuthUserHeader+")")
	fs.StringVar(&a.NameHeader, "auth-name-header", a.NameHeader, "header mode: the header naming the user's display name (env "+EnvAuthNameHeader+")")
	fs.StringVar(&a.GroupsHeader, "auth-groups-header", a.GroupsHeader, "header mode: the header listing the user's groups (env "+EnvAuthGroupsHeader+")")
	fs.StringVar(&raw.trustedProxies, "auth-trusted-proxies", raw.trustedProxies, "header mode: comma-separated CIDRs of the proxies whose headers are believed (env "+EnvAuthTrustedProxies+")")
	fs.Var(&listFlag{dst: &a.AdminGroups}, "auth-admin-groups", "comma-separated groups whose members administer Keygate (env "+EnvAuthAdminGroups+")")
	fs.Var(&listFlag{dst: &a.MemberGroups}, "auth-member-groups", "comma-separated groups admitted as members; empty admits everyone (env "+EnvAuthMemberGroups+")")
	fs.StringVar(&raw.sessionTTL, "auth-session-ttl", raw.sessionTTL, "console session lifetime, e.g. 8h (env "+EnvAuthSessionTTL+")")
	fs.StringVar(&a.Issuer, "oidc-issuer", a.Issuer, "OIDC issuer URL (env "+EnvOIDCIssuer+")")
	fs.StringVar(&a.ClientID, "oidc-client-id", a.ClientID, "OIDC client id (env "+EnvOIDCClientID+")")
	fs.StringVar(&raw.clientSecretFile, "oidc-client-secret-file", raw.clientSecretFile, "file holding the OIDC client secret (env "+EnvOIDCClientSecretFile+"; the secret itself only in "+EnvOIDCClientSecret+")")
	fs.StringVar(&a.RedirectURL, "oidc-redirect-url", a.RedirectURL, "Keygate's public .../auth/callback URL (env "+EnvOIDCRedirectURL+")")
	fs.Var(&listFlag{dst: &a.Scopes}, "oidc-scopes", "comma-separated OIDC scopes (env "+EnvOIDCScopes+")")
	fs.StringVar(&a.UserClaim, "oidc-user-claim", a.UserClaim, "claim naming the user, default sub (env "+EnvOIDCUserClaim+")")
	fs.StringVar(&a.NameClaim, "oidc-name-claim", a.NameClaim, "claim naming the display name, default email (env "+EnvOIDCNameClaim+")")
	fs.StringVar(&a.GroupsClaim, "oidc-groups-claim", a.GroupsClaim, "claim listing the groups, default groups (env "+EnvOIDCGroupsClaim+")")
	fs.StringVar(&s.KeyFile, "secret-key-file", s.KeyFile, "file holding the secret key that seals provider keys (env "+EnvSecretKeyFile+"; the key itself only in "+EnvSecretKey+")")
	fs.StringVar(&s.PreviousKeyFile, "secret-previous-key-file", s.PreviousKeyFile, "file holding the key a rotation replaces, still opened (env "+EnvSecretPreviousKeyFile+")")

	return func() []error {
		var errs []error
		a.Mode = strings.ToLower(strings.TrimSpace(a.Mode))
		for _, v := range splitList(raw.trustedProxies) {
			p, err := netip.ParsePrefix(v)
			if err != nil {
				errs = append(errs, fmt.Errorf("trusted proxies (%s): %w", EnvAuthTrustedProxies, err))
				continue
			}
			a.TrustedProxies = append(a.TrustedProxies, p)
		}
		if raw.sessionTTL != "" {
			d, err := time.ParseDuration(raw.sessionTTL)
			if err != nil {
				errs = append(errs, fmt.Errorf("session lifetime (%s): %w", EnvAuthSessionTTL, err))
			}
			a.SessionTTL = d
		}
		if raw.clientSecretFile != "" {
			b, err := os.ReadFile(raw.clientSecretFile)
			if err != nil {
				// The path is not secret; the error never holds the file's bytes.
				errs = append(errs, fmt.Errorf("OIDC client secret file (%s): %w", EnvOIDCClientSecretFile, err))
			}
			a.ClientSecret = strings.TrimSpace(string(b))
		}
		return errs
	}
}

// SecretsFromEnv reads the keyring settings from the environment (Load
// does too; `keygate secret rotate` reads only these).
func SecretsFromEnv(getenv func(string) string) Secrets {
	var s Secrets
	envString(getenv, EnvSecretKey, &s.Key)
	envString(getenv, EnvSecretKeyFile, &s.KeyFile)
	s.PreviousKeys = splitList(getenv(EnvSecretPreviousKeys))
	envString(getenv, EnvSecretPreviousKeyFile, &s.PreviousKeyFile)
	return s
}

// tracesURL is OTEL_EXPORTER_OTLP_TRACES_ENDPOINT as given, else
// OTEL_EXPORTER_OTLP_ENDPOINT with /v1/traces joined to its path, as the
// OpenTelemetry exporter reads them; empty when neither is set. A base that
// does not parse is returned as given, for Validate to name.
func tracesURL(getenv func(string) string) string {
	if v := strings.TrimSpace(getenv(EnvOTLPTracesEndpoint)); v != "" {
		return v
	}
	base := strings.TrimSpace(getenv(EnvOTLPEndpoint))
	if base == "" {
		return ""
	}
	u, err := url.Parse(base)
	if err != nil {
		return base
	}
	u.Path = path.Join(u.Path, "/v1/traces")
	return u.String()
}

// validateCompany checks the settings of sign-in and tracing.
func (c Config) validateCompany() []error {
	var errs []error
	switch c.Auth.Mode {
	case "", "local", "header", "oidc":
	default:
		errs = append(errs, fmt.Errorf("sign-in mode %q (%s) is not one of local, header, oidc", c.Auth.Mode, EnvAuthMode))
	}
	if c.TracesURL != "" {
		if u, err := url.Parse(c.TracesURL); err != nil || (u.Scheme != "http" && u.Scheme != "https") || u.Host == "" {
			errs = append(errs, errors.New("the OTLP endpoint ("+EnvOTLPEndpoint+" or "+EnvOTLPTracesEndpoint+") must be an http:// or https:// URL with a host"))
		}
	}
	return errs
}
