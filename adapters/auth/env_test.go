package auth_test

import (
	"net/netip"
	"os"
	"path/filepath"
	"time"

	. "github.com/onsi/ginkgo/v2"
	. "github.com/onsi/gomega"

	"keygate/adapters/auth"
)

func envOf(m map[string]string) func(string) string { return func(k string) string { return m[k] } }

var _ = Describe("ConfigFromEnv", func() {
	It("defaults to local mode", func() {
		c, err := auth.ConfigFromEnv(envOf(nil))
		Expect(err).NotTo(HaveOccurred())
		Expect(c.Mode).To(Equal(auth.ModeLocal))
	})

	It("reads a header-mode deployment", func() {
		c, err := auth.ConfigFromEnv(envOf(map[string]string{
			auth.EnvMode: "header", auth.EnvUserHeader: "X-Forwarded-User", auth.EnvGroupsHeader: "X-Forwarded-Groups",
			auth.EnvTrustedProxies: "10.0.0.0/8, 192.168.0.0/16", auth.EnvAdminGroups: "ops,sre", auth.EnvSessionTTL: "8h",
		}))
		Expect(err).NotTo(HaveOccurred())
		Expect(c.Mode).To(Equal(auth.ModeHeader))
		Expect(c.TrustedProxies).To(Equal([]netip.Prefix{netip.MustParsePrefix("10.0.0.0/8"), netip.MustParsePrefix("192.168.0.0/16")}))
		Expect(c.Roles.AdminGroups).To(Equal([]string{"ops", "sre"}))
		Expect(c.SessionTTL).To(Equal(8 * time.Hour))
	})

	It("reads the OIDC client secret from a file", func() {
		path := filepath.Join(GinkgoT().TempDir(), "secret")
		Expect(os.WriteFile(path, []byte("s3cret\n"), 0o600)).To(Succeed())
		c, err := auth.ConfigFromEnv(envOf(map[string]string{auth.EnvMode: "oidc", auth.EnvClientSecretFile: path}))
		Expect(err).NotTo(HaveOccurred())
		Expect(c.ClientSecret).To(Equal("s3cret"))
	})

	DescribeTable("rejects malformed values, naming the variable",
		func(name, value string) {
			_, err := auth.ConfigFromEnv(envOf(map[string]string{name: value}))
			Expect(err).To(MatchError(ContainSubstring(name)))
		},
		Entry("a CIDR that does not parse", auth.EnvTrustedProxies, "10.0.0.0/33"),
		Entry("a session lifetime that is not a duration", auth.EnvSessionTTL, "a day"),
	)
})
