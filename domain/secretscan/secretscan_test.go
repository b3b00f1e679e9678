package secretscan_test

import (
	"testing"

	. "github.com/onsi/ginkgo/v2"
	. "github.com/onsi/gomega"

	"keygate/domain/secretscan"
)

func TestSecretscan(t *testing.T) {
	RegisterFailHandler(Fail)
	RunSpecs(t, "secretscan")
}

var _ = Describe("Marker", func() {
	key := []byte("0123456789abcdef0123456789abcdef")
	It("is the same for the same secret and different for another, without the value", func() {
		a := secretscan.Marker(key, "aws-access-token", "AKIAZ3MSJV4WWNKWW5GG")
		Expect(secretscan.Marker(key, "aws-access-token", "AKIAZ3MSJV4WWNKWW5GG")).To(Equal(a))
		Expect(secretscan.Marker(key, "aws-access-token", "AKIAZ3MSJV4WWNKWW5GH")).NotTo(Equal(a))
		Expect(a).To(MatchRegexp(`^\[REDACTED aws-access-token [0-9a-f]{8}\]$`))
		Expect(a).NotTo(ContainSubstring("AKIA"))
	})
	It("depends on the key", func() {
		other := []byte("fedcba9876543210fedcba9876543210")
		Expect(secretscan.Marker(other, "r", "s")).NotTo(Equal(secretscan.Marker(key, "r", "s")))
	})
	It("keeps the rule id JSON-safe", func() {
		Expect(secretscan.Marker(key, `a"b\c`, "s")).To(HavePrefix("[REDACTED abc "))
	})
})

var _ = Describe("ParseMode", func() {
	It("reads the three modes and refuses others", func() {
		m, err := secretscan.ParseMode(" Block ")
		Expect(err).NotTo(HaveOccurred())
		Expect(m).To(Equal(secretscan.Block))
		_, err = secretscan.ParseMode("warn")
		Expect(err).To(MatchError(ContainSubstring("want off, redact or block")))
	})
})

var _ = Describe("BlockedError", func() {
	It("names the kinds found", func() {
		err := &secretscan.BlockedError{Rules: secretscan.Rules([]secretscan.Finding{{RuleID: "private-key"}, {RuleID: "aws-access-token"}, {RuleID: "private-key"}})}
		Expect(err.Error()).To(ContainSubstring("(aws-access-token, private-key)"))
	})
})

var _ = Describe("Distinct", func() {
	It("keeps one finding per secret", func() {
		fs := []secretscan.Finding{{RuleID: "a", Marker: "m1"}, {RuleID: "a", Marker: "m1"}, {RuleID: "a", Marker: "m2"}}
		Expect(secretscan.Distinct(fs)).To(Equal([]secretscan.Finding{{RuleID: "a", Marker: "m1"}, {RuleID: "a", Marker: "m2"}}))
	})
})
