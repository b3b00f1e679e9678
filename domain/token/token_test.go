package token_test

import (
	"bytes"
	"crypto/rand"
	"io"
	"strings"
	"time"

	. "github.com/onsi/ginkgo/v2"
	. "github.com/onsi/gomega"

	"keygate/domain/identity"
	"keygate/domain/token"
)

var _ = Describe("token.New", func() {
	var (
		owner = identity.Identity{UserID: "u-1", Name: "ada@example.com"}
		now   = time.Date(2026, 11, 30, 6, 0, 0, 0, time.UTC)
	)

	It("mints a recognisable token whose text is never part of the stored form", func() {
		t, text, err := token.New(rand.Reader, owner, "work laptop", now, 0)
		Expect(err).NotTo(HaveOccurred())
		Expect(text).To(HavePrefix("kg_"))
		Expect(token.Check(text)).To(Succeed())
		Expect(t.Hash).To(Equal(token.HashOf(text)))
		Expect(t.Hint).To(Equal(text[:7] + "…"))
		Expect(t.ID).To(HavePrefix("tok_"))
		Expect(t.ID).NotTo(ContainSubstring(text[3:]))
		Expect(t.ExpiresAt.IsZero()).To(BeTrue())
	})

	It("mints different tokens from different randomness", func() {
		_, a, _ := token.New(rand.Reader, owner, "a", now, 0)
		_, b, _ := token.New(rand.Reader, owner, "b", now, 0)
		Expect(a).NotTo(Equal(b))
	})

	It("sets the expiry from the time to live", func() {
		t, _, err := token.New(rand.Reader, owner, "ci", now, time.Hour)
		Expect(err).NotTo(HaveOccurred())
		Expect(t.ExpiresAt).To(Equal(now.Add(time.Hour)))
	})

	DescribeTable("refuses to mint",
		func(id identity.Identity, name string, random []byte, want error) {
			_, _, err := token.New(bytes.NewReader(random), id, name, now, 0)
			Expect(err).To(MatchError(want))
		},
		Entry("a token without an owner", identity.Identity{}, "x", make([]byte, 64), identity.ErrNoUser),
		Entry("a token without a name", owner, "  ", make([]byte, 64), token.ErrNoName),
		Entry("a token from too little randomness", owner, "x", make([]byte, 10), io.ErrUnexpectedEOF),
	)
})

var _ = DescribeTable("token.Check",
	func(text string, ok bool) {
		if ok {
			Expect(token.Check(text)).To(Succeed())
		} else {
			Expect(token.Check(text)).To(MatchError(token.ErrMalformed))
		}
	},
	Entry("43 base64url characters after kg_ are a token", "kg_"+strings.Repeat("A", 43), true),
	Entry("another prefix is not a token", "sk_"+strings.Repeat("A", 43), false),
	Entry("a short secret is not a token", "kg_"+strings.Repeat("A", 42), false),
	Entry("characters outside base64url are not a token", "kg_"+strings.Repeat("+", 43), false),
	Entry("an empty string is not a token", "", false),
)

var _ = Describe("Token life cycle", func() {
	now := time.Date(2026, 11, 30, 6, 0, 0, 0, time.UTC)

	DescribeTable("Usable",
		func(t token.Token, want error) {
			if want == nil {
				Expect(t.Usable(now)).To(Succeed())
			} else {
				Expect(t.Usable(now)).To(MatchError(want))
			}
		},
		Entry("a fresh token authenticates", token.Token{}, nil),
		Entry("a revoked token does not", token.Token{RevokedAt: now.Add(-time.Second)}, token.ErrRevoked),
		Entry("a token at its expiry does not", token.Token{ExpiresAt: now}, token.ErrExpired),
		Entry("a token before its expiry does", token.Token{ExpiresAt: now.Add(time.Second)}, nil),
	)

	DescribeTable("NeedsTouch",
		func(last time.Time, want bool) {
			Expect(token.Token{LastUsedAt: last}.NeedsTouch(now)).To(Equal(want))
		},
		Entry("a never-used token records its first use", time.Time{}, true),
		Entry("a use within a minute of the last is not recorded", now.Add(-30*time.Second), false),
		Entry("a use a minute after the last is recorded", now.Add(-time.Minute), true),
	)
})
