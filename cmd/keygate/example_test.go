package main_test

import (
	"bufio"
	"io"
	"os"
	"regexp"
	"strings"

	. "github.com/onsi/ginkgo/v2"
	. "github.com/onsi/gomega"

	"keygate/adapters/auth"
	"keygate/app/config"
)

// exampleSetting is one KEYGATE_ assignment of the example file, active or
// commented out ("# KEYGATE_X=..."), with any trailing comment removed.
var exampleSetting = regexp.MustCompile(`^(#\s*)?(KEYGATE_[A-Z0-9_]+)=(\S*)`)

var _ = Describe("deploy/company.env.example", func() {
	// known is every variable Keygate reads, by its constant, so that a
	// renamed setting fails here rather than in an operator's deployment.
	known := []string{
		config.EnvDataDir, config.EnvListen, config.EnvLogFormat, config.EnvLogLevel, config.EnvDatabaseURL,
		config.EnvSingleReplica, config.EnvProxyListen, config.EnvProxyPassthrough, config.EnvProxyTLSCert,
		config.EnvProxyMaxConnsPerUser, config.EnvProxyMaxTokensPerUser, config.EnvProxyMaxTokens,
		config.EnvProxyTLSKey, config.EnvProxyURL, config.EnvAgentListen, config.EnvOutboundProxy,
		config.EnvEgressAllow, config.EnvCACert, config.EnvCAKey, config.EnvBudgetsFile, config.EnvMetricsToken,
		config.EnvWebSearch, config.EnvWebSearchURL, config.EnvWebSearchKey, config.EnvWebSearchKeyFile, config.EnvWebFetch,
		config.EnvRetryMaxWait, config.EnvDrainTimeout, config.EnvOpeningWait, config.EnvCursorCloud,
		config.EnvAuthMode, config.EnvAuthUserHeader, config.EnvAuthNameHeader, config.EnvAuthGroupsHeader,
		config.EnvAuthTrustedProxies, config.EnvAuthAdminGroups, config.EnvAuthMemberGroups, config.EnvAuthSessionTTL,
		config.EnvOIDCIssuer, config.EnvOIDCClientID, config.EnvOIDCClientSecret, config.EnvOIDCClientSecretFile,
		config.EnvOIDCRedirectURL, config.EnvOIDCScopes, config.EnvOIDCUserClaim, config.EnvOIDCNameClaim,
		config.EnvOIDCGroupsClaim,
		config.EnvTokenMaxTTLDays, config.EnvTokenAllowUnlimited, config.EnvTokenMaxPerUser,
		config.EnvSecretKey, config.EnvSecretKeyFile, config.EnvSecretPreviousKeys, config.EnvSecretPreviousKeyFile,
		config.EnvSCIMTokenFile, config.EnvSecretGuard, config.EnvRelayLease,
	}

	// read returns the example's active settings and every setting it
	// names, active or commented out.
	read := func() (active map[string]string, named []string) {
		GinkgoHelper()
		f, err := os.Open("../../deploy/company.env.example")
		Expect(err).NotTo(HaveOccurred())
		defer f.Close()
		active = map[string]string{}
		sc := bufio.NewScanner(f)
		for sc.Scan() {
			m := exampleSetting.FindStringSubmatch(strings.TrimSpace(sc.Text()))
			if m == nil {
				continue
			}
			named = append(named, m[2])
			if m[1] == "" {
				active[m[2]] = m[3]
			}
		}
		Expect(sc.Err()).NotTo(HaveOccurred())
		return active, named
	}

	It("names only settings Keygate reads", func() {
		_, named := read()
		Expect(named).NotTo(BeEmpty())
		for _, n := range named {
			Expect(known).To(ContainElement(n), "the example sets %s, which nothing reads", n)
		}
	})

	It("is a configuration Keygate starts with, every commented-out example included", func() {
		active, _ := read()
		Expect(active).To(HaveKey(config.EnvProxyTLSCert), "the example's proxy speaks TLS")
		// Load reads the client secret and SCIM token files, mounted
		// secrets that exist only in a deployment.
		deployed := func(vars map[string]string) func(string) string {
			return func(k string) string {
				if k == config.EnvOIDCClientSecretFile || k == config.EnvSCIMTokenFile {
					return ""
				}
				return vars[k]
			}
		}
		_, err := config.Load(nil, deployed(active), io.Discard)
		Expect(err).NotTo(HaveOccurred())

		f, err := os.ReadFile("../../deploy/company.env.example")
		Expect(err).NotTo(HaveOccurred())
		all := map[string]string{}
		for _, line := range strings.Split(string(f), "\n") {
			if m := exampleSetting.FindStringSubmatch(strings.TrimSpace(line)); m != nil {
				all[m[2]] = m[3]
			}
		}
		cfg, err := config.Load(nil, deployed(all), io.Discard)
		Expect(err).NotTo(HaveOccurred(), "the commented-out examples are valid settings too")
		Expect(cfg.Auth.TrustedProxies).NotTo(BeEmpty())
		for _, p := range cfg.Auth.TrustedProxies {
			Expect(p.Bits()).To(BeNumerically(">", auth.MaxTrustedPrefix4), "the example trusts its front's addresses, not a whole private network: %s", p)
		}
	})
})
