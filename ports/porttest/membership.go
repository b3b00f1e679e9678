package porttest

import (
	"context"
	"time"

	. "github.com/onsi/ginkgo/v2"
	. "github.com/onsi/gomega"

	"keygate/ports"
)

// DescribeMembershipStore declares the contract suite of
// ports.MembershipStore. open returns a store that may already hold other
// specs' users (ids are unique).
func DescribeMembershipStore(name string, open func() ports.MembershipStore) bool {
	return Describe(name+" MembershipStore", func() {
		var (
			ms  ports.MembershipStore
			ctx context.Context
			now time.Time
		)
		BeforeEach(func() {
			ms, ctx = open(), context.Background()
			now = time.Date(2026, 12, 1, 6, 0, 0, 0, time.UTC)
		})

		It("answers ErrNotFound for a user whose groups were never recorded", func() {
			_, _, err := ms.Groups(ctx, uniq("user"))
			Expect(err).To(MatchError(ports.ErrNotFound))
		})

		It("keeps the latest groups seen, whatever order replicas record them in", func() {
			u := uniq("user")
			Expect(ms.RecordGroups(ctx, u, []string{"staff", "kg-users"}, now)).To(Succeed())
			Expect(ms.RecordGroups(ctx, u, []string{"staff"}, now.Add(time.Minute))).To(Succeed())
			Expect(ms.RecordGroups(ctx, u, []string{"stale"}, now.Add(30*time.Second))).To(Succeed())
			groups, at, err := ms.Groups(ctx, u)
			Expect(err).NotTo(HaveOccurred())
			Expect(groups).To(Equal([]string{"staff"}))
			Expect(at).To(BeTemporally("==", now.Add(time.Minute)))
		})

		It("records a user seen without any group", func() {
			u := uniq("user")
			Expect(ms.RecordGroups(ctx, u, nil, now)).To(Succeed())
			groups, _, err := ms.Groups(ctx, u)
			Expect(err).NotTo(HaveOccurred())
			Expect(groups).To(BeEmpty())
		})

		It("writes nothing on a cancelled context", func() {
			u := uniq("user")
			cancelled, cancel := context.WithCancel(ctx)
			cancel()
			Expect(ms.RecordGroups(cancelled, u, []string{"staff"}, now)).To(MatchError(context.Canceled))
			_, _, err := ms.Groups(ctx, u)
			Expect(err).To(MatchError(ports.ErrNotFound))
		})
	})
}
