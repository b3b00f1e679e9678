package porttest

import (
	"context"
	"time"

	. "github.com/onsi/ginkgo/v2"
	. "github.com/onsi/gomega"

	"keygate/ports"
)

// DescribeSessionRevocations declares the contract suite of
// ports.SessionRevocations.
func DescribeSessionRevocations(name string, open func() ports.SessionRevocations) bool {
	return Describe(name+" SessionRevocations", func() {
		var (
			st  ports.SessionRevocations
			ctx context.Context
		)
		BeforeEach(func() { st, ctx = open(), context.Background() })

		It("reports a revoked session as revoked, and any other as not", func() {
			id := uniq("session")
			Expect(st.SessionRevoked(ctx, id)).To(BeFalse())
			Expect(st.RevokeSession(ctx, id, time.Now().Add(time.Hour))).To(Succeed())
			Expect(st.SessionRevoked(ctx, id)).To(BeTrue())
			Expect(st.SessionRevoked(ctx, uniq("session"))).To(BeFalse())
		})

		It("accepts a second revocation of the same session", func() {
			id := uniq("session")
			Expect(st.RevokeSession(ctx, id, time.Now().Add(time.Hour))).To(Succeed())
			Expect(st.RevokeSession(ctx, id, time.Now().Add(2*time.Hour))).To(Succeed())
			Expect(st.SessionRevoked(ctx, id)).To(BeTrue())
		})

		It("keeps a revocation until its session would have expired", func() {
			live, gone := uniq("session"), uniq("session")
			Expect(st.RevokeSession(ctx, gone, time.Now().Add(-time.Minute))).To(Succeed())
			Expect(st.RevokeSession(ctx, live, time.Now().Add(time.Hour))).To(Succeed())
			Expect(st.SessionRevoked(ctx, live)).To(BeTrue(), "an unexpired revocation is never purged")
		})

		It("returns the context's error when cancelled", func() {
			_, err := st.SessionRevoked(cancelled(ctx), uniq("session"))
			Expect(err).To(MatchError(context.Canceled))
			Expect(st.RevokeSession(cancelled(ctx), uniq("session"), time.Now().Add(time.Hour))).To(MatchError(context.Canceled))
		})
	})
}
