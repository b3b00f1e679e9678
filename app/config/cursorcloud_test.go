package config_test

import (
	"io"

	. "github.com/onsi/ginkgo/v2"
	. "github.com/onsi/gomega"

	"keygate/app/config"
	"keygate/domain/cursorcloud"
)

var _ = Describe("The Cursor cloud policy setting (KEYGATE_CURSOR_CLOUD, --cursor-cloud)", func() {
	header := map[string]string{config.EnvAuthMode: "header", config.EnvAuthUserHeader: "X-User",
		config.EnvAuthTrustedProxies: "10.0.0.0/8"}

	It("defaults to allow on a laptop and to metadata in company mode", func() {
		laptop, err := config.Load(nil, env(nil), io.Discard)
		Expect(err).NotTo(HaveOccurred())
		Expect(laptop.CursorCloudPolicy()).To(Equal(cursorcloud.Allow))
		company, _, err := config.Parse(nil, env(header), io.Discard, nil)
		Expect(err).NotTo(HaveOccurred())
		Expect(company.CursorCloudPolicy()).To(Equal(cursorcloud.Metadata))
	})

	It("takes the environment, and the flag over it", func() {
		cfg, err := config.Load(nil, env(map[string]string{config.EnvCursorCloud: " Deny "}), io.Discard)
		Expect(err).NotTo(HaveOccurred())
		Expect(cfg.CursorCloudPolicy()).To(Equal(cursorcloud.Deny))
		cfg, err = config.Load([]string{"--cursor-cloud", "metadata"}, env(map[string]string{config.EnvCursorCloud: "deny"}), io.Discard)
		Expect(err).NotTo(HaveOccurred())
		Expect(cfg.CursorCloudPolicy()).To(Equal(cursorcloud.Metadata))
		company, _, err := config.Parse([]string{"--cursor-cloud", "allow"}, env(header), io.Discard, nil)
		Expect(err).NotTo(HaveOccurred())
		Expect(company.CursorCloudPolicy()).To(Equal(cursorcloud.Allow))
	})

	It("refuses a value it does not know, naming the variable", func() {
		_, err := config.Load(nil, env(map[string]string{config.EnvCursorCloud: "some"}), io.Discard)
		Expect(err).To(MatchError(ContainSubstring("KEYGATE_CURSOR_CLOUD")))
	})
})
