package config_test

import (
	"io"

	. "github.com/onsi/ginkgo/v2"
	. "github.com/onsi/gomega"

	"keygate/app/config"
	"keygate/domain/secretscan"
)

var _ = Describe("The secret guard setting (KEYGATE_SECRET_GUARD, --secret-guard)", func() {
	header := map[string]string{config.EnvAuthMode: "header", config.EnvAuthUserHeader: "X-User",
		config.EnvAuthTrustedProxies: "10.0.0.0/8"}

	It("defaults to off on a laptop and to redact in company mode", func() {
		laptop, err := config.Load(nil, env(nil), io.Discard)
		Expect(err).NotTo(HaveOccurred())
		Expect(laptop.SecretGuardMode()).To(Equal(secretscan.Off))
		company, _, err := config.Parse(nil, env(header), io.Discard, nil)
		Expect(err).NotTo(HaveOccurred())
		Expect(company.SecretGuardMode()).To(Equal(secretscan.Redact))
	})

	It("takes the environment, and the flag over it", func() {
		cfg, err := config.Load(nil, env(map[string]string{config.EnvSecretGuard: " Block "}), io.Discard)
		Expect(err).NotTo(HaveOccurred())
		Expect(cfg.SecretGuardMode()).To(Equal(secretscan.Block))
		cfg, err = config.Load([]string{"--secret-guard", "redact"}, env(map[string]string{config.EnvSecretGuard: "block"}), io.Discard)
		Expect(err).NotTo(HaveOccurred())
		Expect(cfg.SecretGuardMode()).To(Equal(secretscan.Redact))
		company, _, err := config.Parse([]string{"--secret-guard", "off"}, env(header), io.Discard, nil)
		Expect(err).NotTo(HaveOccurred())
		Expect(company.SecretGuardMode()).To(Equal(secretscan.Off))
	})

	It("refuses a value it does not know, naming the variable", func() {
		_, err := config.Load(nil, env(map[string]string{config.EnvSecretGuard: "warn"}), io.Discard)
		Expect(err).To(MatchError(ContainSubstring("KEYGATE_SECRET_GUARD")))
	})
})
