package token_test

import (
	"crypto/rand"
	"time"

	. "github.com/onsi/ginkgo/v2"
	. "github.com/onsi/gomega"

	"keygate/domain/identity"
	"keygate/domain/token"
)

var _ = Describe("token.Policy", func() {
	bounded := token.Policy{MaxDays: 90}
	now := time.Date(2026, 12, 1, 6, 0, 0, 0, time.UTC)

	DescribeTable("Lifetime",
		func(p token.Policy, days int, want time.Duration, refused bool) {
			got, err := p.Lifetime(days)
			if refused {
				var lerr *token.LifetimeError
				Expect(err).To(BeAssignableToTypeOf(lerr))
				return
			}
			Expect(err).NotTo(HaveOccurred())
			Expect(got).To(Equal(want))
		},
		Entry("no lifetime asked is the longest allowed", bounded, 0, 90*24*time.Hour, false),
		Entry("a shorter one is kept", bounded, 7, 7*24*time.Hour, false),
		Entry("the longest is allowed", bounded, 90, 90*24*time.Hour, false),
		Entry("a longer one is refused", bounded, 91, time.Duration(0), true),
		Entry("one that would overflow a duration is refused, not turned into never", bounded, 106752, time.Duration(0), true),
		Entry("a negative one is refused", bounded, -1, time.Duration(0), true),
		Entry("without a bound, none asked never expires", token.Policy{}, 0, time.Duration(0), false),
		Entry("without a bound, ten years at most", token.Policy{}, token.MaxDaysLimit+1, time.Duration(0), true),
	)

	It("refuses a token older than the longest lifetime, whatever its own expiry", func() {
		t, _, err := token.New(rand.Reader, identity.Identity{UserID: "ada"}, "old", now, 0)
		Expect(err).NotTo(HaveOccurred())
		Expect(bounded.Usable(t, now.Add(89*24*time.Hour))).To(Succeed())
		Expect(bounded.Usable(t, now.Add(90*24*time.Hour))).To(MatchError(token.ErrExpired))
		Expect(token.Policy{}.Usable(t, now.Add(900*24*time.Hour))).To(Succeed())
		Expect(bounded.Live(t, now.Add(91*24*time.Hour))).To(BeFalse())
	})

	It("names the bound when a user holds too many tokens", func() {
		err := error(&token.TooManyError{Live: 20, Max: 20})
		Expect(err).To(MatchError(token.ErrTooMany))
		Expect(err.Error()).To(ContainSubstring("revoke one"))
	})
})
