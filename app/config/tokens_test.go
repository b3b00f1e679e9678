package config_test

import (
	"io"

	. "github.com/onsi/ginkgo/v2"
	. "github.com/onsi/gomega"

	"keygate/app/config"
)

var _ = Describe("config.Load of the gateway token limits", func() {
	header := map[string]string{config.EnvAuthMode: "header", config.EnvAuthUserHeader: "X-User",
		config.EnvAuthTrustedProxies: "10.1.0.0/16"}
	with := func(extra map[string]string) map[string]string {
		out := map[string]string{}
		for k, v := range header {
			out[k] = v
		}
		for k, v := range extra {
			out[k] = v
		}
		return out
	}

	It("bounds tokens to 90 days and 20 live ones per user by default", func() {
		cfg, err := config.Load(nil, env(header), io.Discard)
		Expect(err).NotTo(HaveOccurred())
		Expect(cfg.Tokens).To(Equal(config.Tokens{MaxTTLDays: 90, MaxPerUser: 20}))
	})

	It("reads them from the environment, flags winning", func() {
		cfg, err := config.Load([]string{"--token-max-per-user", "3"},
			env(with(map[string]string{config.EnvTokenMaxTTLDays: "30", config.EnvTokenMaxPerUser: "7"})), io.Discard)
		Expect(err).NotTo(HaveOccurred())
		Expect(cfg.Tokens).To(Equal(config.Tokens{MaxTTLDays: 30, MaxPerUser: 3}))
	})

	DescribeTable("refuses",
		func(extra map[string]string, want string) {
			_, err := config.Load(nil, env(with(extra)), io.Discard)
			Expect(err).To(MatchError(ContainSubstring(want)))
		},
		Entry("tokens that never expire in company mode without the operator's say-so",
			map[string]string{config.EnvTokenMaxTTLDays: "0"}, config.EnvTokenAllowUnlimited),
		Entry("a lifetime beyond ten years", map[string]string{config.EnvTokenMaxTTLDays: "106752"}, "between 1 and 3650 days"),
		Entry("a negative lifetime", map[string]string{config.EnvTokenMaxTTLDays: "-1"}, "between 1 and 3650 days"),
		Entry("a lifetime that is not a number", map[string]string{config.EnvTokenMaxTTLDays: "90d"}, "whole number"),
		Entry("a negative cap", map[string]string{config.EnvTokenMaxPerUser: "-5"}, config.EnvTokenMaxPerUser),
	)

	It("allows tokens that never expire when the operator says so, and on a laptop", func() {
		cfg, err := config.Load(nil, env(with(map[string]string{config.EnvTokenMaxTTLDays: "0", config.EnvTokenAllowUnlimited: "true"})), io.Discard)
		Expect(err).NotTo(HaveOccurred())
		Expect(cfg.Tokens.MaxTTLDays).To(BeZero())
		_, err = config.Load(nil, env(map[string]string{config.EnvTokenMaxTTLDays: "0"}), io.Discard)
		Expect(err).NotTo(HaveOccurred())
	})
})
