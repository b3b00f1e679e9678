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
	"keygate/adapters/secret"
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
		config.EnvProxyTLSKey, config.EnvProxyURL, config.EnvAgentListen, config.EnvOutboundProxy,
		config.EnvEgressAllow, config.EnvCACert, config.EnvCAKey, config.EnvBudgetsFile, config.EnvMetricsToken,
		config.EnvWebSearch, config.EnvWebSearchURL, config.EnvWebSearchKey, config.EnvWebSearchKeyFile, config.EnvWebFetch,
		auth.EnvMode, auth.EnvUserHeader, auth.EnvNameHeader, auth.EnvGroupsHeader, auth.EnvTrustedProxies,
		auth.EnvAdminGroups, auth.EnvMemberGroups, auth.EnvSessionTTL, auth.EnvIssuer, auth.EnvClientID,
		auth.EnvClientSecret, auth.EnvClientSecretFile, auth.EnvRedirectURL, auth.EnvScopes, auth.EnvUserClaim,
		auth.EnvNameClaim, auth.EnvGroupsClaim,
		secret.EnvKey, secret.EnvKeyFile, secret.EnvPreviousKeys, secret.EnvPreviousFile,
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
		getenv := func(k string) string { return active[k] }
		_, err := config.Load(nil, getenv, io.Discard)
		Expect(err).NotTo(HaveOccurred())

		f, err := os.ReadFile("../../deploy/company.env.example")
		Expect(err).NotTo(HaveOccurred())
		all := map[string]string{}
		for _, line := range strings.Split(string(f), "\n") {
			if m := exampleSetting.FindStringSubmatch(strings.TrimSpace(line)); m != nil {
				all[m[2]] = m[3]
			}
		}
		_, err = config.Load(nil, func(k string) string { return all[k] }, io.Discard)
		Expect(err).NotTo(HaveOccurred(), "the commented-out examples are valid settings too")
		cfg, err := auth.ConfigFromEnv(func(k string) string {
			if k == auth.EnvClientSecretFile {
				return "" // a mounted secret that exists only in a deployment
			}
			return all[k]
		})
		Expect(err).NotTo(HaveOccurred())
		Expect(cfg.TrustedProxies).NotTo(BeEmpty())
		for _, p := range cfg.TrustedProxies {
			Expect(p.Bits()).To(BeNumerically(">", auth.MaxTrustedPrefix4), "the example trusts its front's addresses, not a whole private network: %s", p)
		}
	})
})
