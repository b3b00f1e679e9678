package config

import (
	"errors"
	"flag"
	"fmt"
	"io"
	"net/netip"
	"net/url"
	"os"
	"path"
	"strconv"
	"strings"
	"time"

	"keygate/domain/token"
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
	// SCIMToken is the bearer token identity providers provision users
	// and groups with at /scim/v2, read at Load from the file
	// EnvSCIMTokenFile names; empty leaves the endpoint off. It is never a
	// flag or a variable of its own.
	SCIMToken string
}

// Tokens bound the personal gateway tokens of company mode.
type Tokens struct {
	// MaxTTLDays is the longest a token lives, in days (a token asked
	// without a lifetime gets it; tokens minted before, counted from their
	// creation, stop at it too). 0 allows tokens that never expire, which
	// company mode refuses unless AllowUnlimited says so.
	MaxTTLDays int
	// AllowUnlimited lets MaxTTLDays be 0 in company mode.
	AllowUnlimited bool
	// MaxPerUser bounds the live (not revoked, not expired) tokens one
	// user holds; 0 is no bound.
	MaxPerUser int
}

// Defaults of Tokens.
const (
	DefaultTokenMaxTTLDays = 90
	DefaultTokenMaxPerUser = 20
)

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
	// EnvSCIMTokenFile names the file holding the SCIM bearer token.
	EnvSCIMTokenFile   = "KEYGATE_SCIM_TOKEN_FILE"
	EnvOIDCScopes      = "KEYGATE_OIDC_SCOPES" // comma-separated
	EnvOIDCUserClaim   = "KEYGATE_OIDC_USER_CLAIM"
	EnvOIDCNameClaim   = "KEYGATE_OIDC_NAME_CLAIM"
	EnvOIDCGroupsClaim = "KEYGATE_OIDC_GROUPS_CLAIM"

	EnvTokenMaxTTLDays     = "KEYGATE_TOKEN_MAX_TTL_DAYS"    // days; 0 = no limit (company mode: with KEYGATE_TOKEN_ALLOW_UNLIMITED)
	EnvTokenAllowUnlimited = "KEYGATE_TOKEN_ALLOW_UNLIMITED" // true lets KEYGATE_TOKEN_MAX_TTL_DAYS be 0 in company mode
	EnvTokenMaxPerUser     = "KEYGATE_TOKEN_MAX_PER_USER"    // live tokens per user; 0 = no limit

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
	trustedProxies, sessionTTL, clientSecretFile, scimTokenFile string
	tokenMaxTTLDays, tokenAllowUnlimited, tokenMaxPerUser       string
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
	envString(getenv, EnvSCIMTokenFile, &raw.scimTokenFile)
	a.Scopes = splitList(getenv(EnvOIDCScopes))
	envString(getenv, EnvOIDCUserClaim, &a.UserClaim)
	envString(getenv, EnvOIDCNameClaim, &a.NameClaim)
	envString(getenv, EnvOIDCGroupsClaim, &a.GroupsClaim)

	envString(getenv, EnvTokenMaxTTLDays, &raw.tokenMaxTTLDays)
	envString(getenv, EnvTokenAllowUnlimited, &raw.tokenAllowUnlimited)
	envString(getenv, EnvTokenMaxPerUser, &raw.tokenMaxPerUser)

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
	fs.StringVar(&raw.scimTokenFile, "scim-token-file", raw.scimTokenFile, "file holding the bearer token identity providers provision users and groups with at /scim/v2; unset leaves SCIM off (env "+EnvSCIMTokenFile+")")
	fs.StringVar(&a.RedirectURL, "oidc-redirect-url", a.RedirectURL, "Keygate's public .../auth/callback URL (env "+EnvOIDCRedirectURL+")")
	fs.Var(&listFlag{dst: &a.Scopes}, "oidc-scopes", "comma-separated OIDC scopes (env "+EnvOIDCScopes+")")
	fs.StringVar(&a.UserClaim, "oidc-user-claim", a.UserClaim, "claim naming the user, default sub (env "+EnvOIDCUserClaim+")")
	fs.StringVar(&a.NameClaim, "oidc-name-claim", a.NameClaim, "claim naming the display name, default email (env "+EnvOIDCNameClaim+")")
	fs.StringVar(&a.GroupsClaim, "oidc-groups-claim", a.GroupsClaim, "claim listing the groups, default groups (env "+EnvOIDCGroupsClaim+")")
	fs.StringVar(&raw.tokenMaxTTLDays, "token-max-ttl-days", raw.tokenMaxTTLDays, "longest lifetime of a gateway token in days, default 90; 0 = no limit, refused in company mode without --token-allow-unlimited (env "+EnvTokenMaxTTLDays+")")
	fs.StringVar(&raw.tokenAllowUnlimited, "token-allow-unlimited", raw.tokenAllowUnlimited, "true lets --token-max-ttl-days be 0 (tokens that never expire) in company mode (env "+EnvTokenAllowUnlimited+")")
	fs.StringVar(&raw.tokenMaxPerUser, "token-max-per-user", raw.tokenMaxPerUser, "live gateway tokens one user may hold, default 20; 0 = no limit (env "+EnvTokenMaxPerUser+")")
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
		errs = append(errs, raw.tokens(&cfg.Tokens)...)
		if raw.clientSecretFile != "" {
			b, err := os.ReadFile(raw.clientSecretFile)
			if err != nil {
				// The path is not secret; the error never holds the file's bytes.
				errs = append(errs, fmt.Errorf("OIDC client secret file (%s): %w", EnvOIDCClientSecretFile, err))
			}
			a.ClientSecret = strings.TrimSpace(string(b))
		}
		if raw.scimTokenFile != "" {
			b, err := readSmallFile(raw.scimTokenFile, 4096)
			if err != nil {
				errs = append(errs, fmt.Errorf("SCIM token file (%s): %w", EnvSCIMTokenFile, err))
			}
			a.SCIMToken = strings.TrimSpace(string(b))
			if err == nil && len(a.SCIMToken) < 32 {
				errs = append(errs, fmt.Errorf("SCIM token file (%s): the token must hold at least 32 characters (e.g. openssl rand -hex 32)", EnvSCIMTokenFile))
			}
		}
		return errs
	}
}

// readSmallFile reads the file at name, refusing one larger than limit
// bytes.
func readSmallFile(name string, limit int64) ([]byte, error) {
	f, err := os.Open(name)
	if err != nil {
		return nil, err
	}
	defer f.Close()
	b, err := io.ReadAll(io.LimitReader(f, limit+1))
	if err != nil {
		return nil, err
	}
	if int64(len(b)) > limit {
		return nil, fmt.Errorf("larger than %d bytes", limit)
	}
	return b, nil
}

// tokens parses the token limits given as text into t.
func (raw companyRaw) tokens(t *Tokens) []error {
	var errs []error
	for _, v := range []struct {
		text, env string
		dst       *int
	}{{raw.tokenMaxTTLDays, EnvTokenMaxTTLDays, &t.MaxTTLDays}, {raw.tokenMaxPerUser, EnvTokenMaxPerUser, &t.MaxPerUser}} {
		if v.text == "" {
			continue
		}
		n, err := strconv.Atoi(strings.TrimSpace(v.text))
		if err != nil {
			errs = append(errs, fmt.Errorf("%s: a whole number is expected, got %q", v.env, v.text))
			continue
		}
		*v.dst = n
	}
	if raw.tokenAllowUnlimited != "" {
		b, err := strconv.ParseBool(strings.TrimSpace(raw.tokenAllowUnlimited))
		if err != nil {
			errs = append(errs, fmt.Errorf("%s: %w", EnvTokenAllowUnlimited, err))
		}
		t.AllowUnlimited = b
	}
	return errs
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

// validateCompany checks the settings of sign-in, gateway tokens and
// tracing.
func (c Config) validateCompany() []error {
	var errs []error
	switch c.Auth.Mode {
	case "", "local", "header", "oidc":
	default:
		errs = append(errs, fmt.Errorf("sign-in mode %q (%s) is not one of local, header, oidc", c.Auth.Mode, EnvAuthMode))
	}
	if c.Auth.SCIMToken != "" && (c.Auth.Mode == "" || c.Auth.Mode == "local") {
		errs = append(errs, fmt.Errorf("SCIM provisioning (%s) needs company sign-in: set %s to header or oidc", EnvSCIMTokenFile, EnvAuthMode))
	}
	t := c.Tokens
	switch {
	case t.MaxTTLDays < 0 || t.MaxTTLDays > token.MaxDaysLimit:
		errs = append(errs, fmt.Errorf("gateway token lifetime (%s) %d must be between 1 and %d days, or 0 for no limit", EnvTokenMaxTTLDays, t.MaxTTLDays, token.MaxDaysLimit))
	case t.MaxTTLDays == 0 && c.Auth.Mode != "" && c.Auth.Mode != "local" && !t.AllowUnlimited:
		errs = append(errs, fmt.Errorf("gateway tokens that never expire (%s=0) are refused in company mode: set a number of days, or %s=true to allow them", EnvTokenMaxTTLDays, EnvTokenAllowUnlimited))
	}
	if t.MaxPerUser < 0 {
		errs = append(errs, fmt.Errorf("live gateway tokens per user (%s) must be 0 (no limit) or more", EnvTokenMaxPerUser))
	}
	if c.TracesURL != "" {
		if u, err := url.Parse(c.TracesURL); err != nil || (u.Scheme != "http" && u.Scheme != "https") || u.Host == "" {
			errs = append(errs, errors.New("the OTLP endpoint ("+EnvOTLPEndpoint+" or "+EnvOTLPTracesEndpoint+") must be an http:// or https:// URL with a host"))
		}
	}
	return errs
}
