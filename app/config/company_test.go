package config_test

import (
	"io"
	"net/netip"
	"os"
	"path/filepath"
	"time"

	. "github.com/onsi/ginkgo/v2"
	. "github.com/onsi/gomega"

	"keygate/app/config"
)

var _ = Describe("config.Load of sign-in, the keyring and tracing", func() {
	It("defaults to local sign-in, the generated keyring and no tracing", func() {
		cfg, err := config.Load(nil, env(nil), io.Discard)
		Expect(err).NotTo(HaveOccurred())
		Expect(cfg.Auth).To(Equal(config.Auth{Mode: "local"}))
		Expect(cfg.Secrets).To(Equal(config.Secrets{}))
		Expect(cfg.TracesURL).To(BeEmpty())
	})

	It("reads a header-mode deployment from the environment", func() {
		cfg, err := config.Load(nil, env(map[string]string{
			config.EnvAuthMode: " Header ", config.EnvAuthUserHeader: "X-Forwarded-User", config.EnvAuthGroupsHeader: "X-Forwarded-Groups",
			config.EnvAuthTrustedProxies: "10.1.0.0/16, 192.168.0.0/16", config.EnvAuthAdminGroups: "ops,sre",
			config.EnvAuthSessionTTL: "8h",
		}), io.Discard)
		Expect(err).NotTo(HaveOccurred())
		Expect(cfg.Auth.Mode).To(Equal("header"))
		Expect(cfg.Auth.UserHeader).To(Equal("X-Forwarded-User"))
		Expect(cfg.Auth.GroupsHeader).To(Equal("X-Forwarded-Groups"))
		Expect(cfg.Auth.TrustedProxies).To(Equal([]netip.Prefix{netip.MustParsePrefix("10.1.0.0/16"), netip.MustParsePrefix("192.168.0.0/16")}))
		Expect(cfg.Auth.AdminGroups).To(Equal([]string{"ops", "sre"}))
		Expect(cfg.Auth.MemberGroups).To(BeEmpty())
		Expect(cfg.Auth.SessionTTL).To(Equal(8 * time.Hour))
	})

	It("takes the sign-in flags over the environment", func() {
		cfg, err := config.Load([]string{"--auth-mode", "oidc", "--oidc-issuer", "https://idp.example", "--oidc-client-id", "kg",
			"--oidc-redirect-url", "https://kg.example/auth/callback", "--oidc-scopes", "openid,email", "--auth-session-ttl", "1h",
			"--auth-trusted-proxies", "10.9.0.0/16"},
			env(map[string]string{config.EnvAuthMode: "header", config.EnvOIDCIssuer: "https://old.example",
				config.EnvOIDCScopes: "openid", config.EnvAuthSessionTTL: "8h", config.EnvAuthTrustedProxies: "10.1.0.0/16"}), io.Discard)
		Expect(err).NotTo(HaveOccurred())
		Expect(cfg.Auth.Mode).To(Equal("oidc"))
		Expect(cfg.Auth.Issuer).To(Equal("https://idp.example"))
		Expect(cfg.Auth.ClientID).To(Equal("kg"))
		Expect(cfg.Auth.RedirectURL).To(Equal("https://kg.example/auth/callback"))
		Expect(cfg.Auth.Scopes).To(Equal([]string{"openid", "email"}))
		Expect(cfg.Auth.SessionTTL).To(Equal(time.Hour))
		Expect(cfg.Auth.TrustedProxies).To(Equal([]netip.Prefix{netip.MustParsePrefix("10.9.0.0/16")}))
	})

	It("reads the OIDC client secret from the environment or, winning, from a file, and never from a flag", func() {
		cfg, err := config.Load(nil, env(map[string]string{config.EnvOIDCClientSecret: "from-env"}), io.Discard)
		Expect(err).NotTo(HaveOccurred())
		Expect(cfg.Auth.ClientSecret).To(Equal("from-env"))

		path := filepath.Join(GinkgoT().TempDir(), "secret")
		Expect(os.WriteFile(path, []byte("s3cret\n"), 0o600)).To(Succeed())
		cfg, err = config.Load(nil, env(map[string]string{config.EnvOIDCClientSecret: "from-env", config.EnvOIDCClientSecretFile: path}), io.Discard)
		Expect(err).NotTo(HaveOccurred())
		Expect(cfg.Auth.ClientSecret).To(Equal("s3cret"))

		_, err = config.Load([]string{"--oidc-client-secret", "x"}, env(nil), io.Discard)
		Expect(err).To(HaveOccurred(), "no flag: it would show in the process list")
	})

	It("reads the SCIM token from its file, refusing a short one, a missing file, and SCIM without company sign-in", func() {
		dir := GinkgoT().TempDir()
		good, short := filepath.Join(dir, "scim"), filepath.Join(dir, "short")
		Expect(os.WriteFile(good, []byte("0123456789abcdef0123456789abcdef\n"), 0o600)).To(Succeed())
		Expect(os.WriteFile(short, []byte("too-short"), 0o600)).To(Succeed())
		cfg, err := config.Load(nil, env(map[string]string{config.EnvSCIMTokenFile: good, config.EnvAuthMode: "oidc"}), io.Discard)
		Expect(err).NotTo(HaveOccurred())
		Expect(cfg.Auth.SCIMToken).To(Equal("0123456789abcdef0123456789abcdef"))
		cfg, err = config.Load([]string{"--scim-token-file", good}, env(map[string]string{config.EnvAuthMode: "header"}), io.Discard)
		Expect(err).NotTo(HaveOccurred())
		Expect(cfg.Auth.SCIMToken).NotTo(BeEmpty())

		_, err = config.Load(nil, env(map[string]string{config.EnvSCIMTokenFile: short, config.EnvAuthMode: "oidc"}), io.Discard)
		Expect(err).To(MatchError(And(ContainSubstring(config.EnvSCIMTokenFile), ContainSubstring("32 characters"))))
		Expect(err.Error()).NotTo(ContainSubstring("too-short"), "the message never holds the file's bytes")
		_, err = config.Load(nil, env(map[string]string{config.EnvSCIMTokenFile: filepath.Join(dir, "missing"), config.EnvAuthMode: "oidc"}), io.Discard)
		Expect(err).To(MatchError(ContainSubstring(config.EnvSCIMTokenFile)))
		cfg, err = config.Load(nil, env(map[string]string{config.EnvSCIMTokenFile: good}), io.Discard)
		if err == nil {
			err = cfg.Validate()
		}
		Expect(err).To(MatchError(ContainSubstring("needs company sign-in")))
	})

	It("reads the keyring's keys from the environment only, and the key files from flags too", func() {
		vars := map[string]string{config.EnvSecretKey: "a2V5", config.EnvSecretKeyFile: "/run/key",
			config.EnvSecretPreviousKeys: "b2xk, b2xkZXI=", config.EnvSecretPreviousKeyFile: "/run/old"}
		want := config.Secrets{Key: "a2V5", KeyFile: "/run/key", PreviousKeys: []string{"b2xk", "b2xkZXI="}, PreviousKeyFile: "/run/old"}
		Expect(config.SecretsFromEnv(env(vars))).To(Equal(want))
		cfg, err := config.Load(nil, env(vars), io.Discard)
		Expect(err).NotTo(HaveOccurred())
		Expect(cfg.Secrets).To(Equal(want))

		cfg, err = config.Load([]string{"--secret-key-file", "/run/new"}, env(vars), io.Discard)
		Expect(err).NotTo(HaveOccurred())
		Expect(cfg.Secrets.KeyFile).To(Equal("/run/new"))
		for _, secretFlag := range []string{"--secret-key", "--secret-previous-keys"} {
			_, err = config.Load([]string{secretFlag, "x"}, env(nil), io.Discard)
			Expect(err).To(HaveOccurred(), "%s: a key on the command line would show in the process list", secretFlag)
		}
	})

	DescribeTable("exports traces where OpenTelemetry's standard variables say",
		func(vars map[string]string, want string) {
			cfg, err := config.Load(nil, env(vars), io.Discard)
			Expect(err).NotTo(HaveOccurred())
			Expect(cfg.TracesURL).To(Equal(want))
		},
		Entry("the collector's base URL, traces under /v1/traces",
			map[string]string{config.EnvOTLPEndpoint: "http://collector:4318"}, "http://collector:4318/v1/traces"),
		Entry("a base URL with a path",
			map[string]string{config.EnvOTLPEndpoint: "https://otel.example/otlp/"}, "https://otel.example/otlp/v1/traces"),
		Entry("the traces URL as given, winning over the base",
			map[string]string{config.EnvOTLPEndpoint: "http://collector:4318", config.EnvOTLPTracesEndpoint: "https://traces.example/t"},
			"https://traces.example/t"),
	)

	DescribeTable("refuses a malformed value, naming its variable",
		func(name, value string) {
			_, err := config.Load(nil, env(map[string]string{name: value}), io.Discard)
			Expect(err).To(MatchError(ContainSubstring(name)))
		},
		Entry("a trusted proxy range that does not parse", config.EnvAuthTrustedProxies, "10.0.0.0/33"),
		Entry("a session lifetime that is not a duration", config.EnvAuthSessionTTL, "a day"),
		Entry("an unknown sign-in mode", config.EnvAuthMode, "ldap"),
		Entry("a client secret file that cannot be read", config.EnvOIDCClientSecretFile, "/nonexistent/keygate/secret"),
		Entry("an OTLP endpoint that is not a URL", config.EnvOTLPEndpoint, "collector:4318"),
	)

	It("reports a malformed sign-in value together with every other problem", func() {
		_, err := config.Load([]string{"--log-level", "loud"}, env(map[string]string{config.EnvAuthSessionTTL: "a day"}), io.Discard)
		Expect(err).To(MatchError(And(ContainSubstring(config.EnvAuthSessionTTL), ContainSubstring(`log level "loud"`))))
	})
})
