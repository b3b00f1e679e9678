package postgres_test

import (
	"context"
	"time"

	. "github.com/onsi/ginkgo/v2"
	. "github.com/onsi/gomega"
	"go.uber.org/zap"

	"keygate/adapters/postgres"
	"keygate/ports/porttest"
)

// replica opens its own pool and relay, as a second Keygate process would.
func replica(opts postgres.RelayOptions) *postgres.Relay {
	db, err := postgres.Open(context.Background(), dsn, zap.NewNop())
	Expect(err).NotTo(HaveOccurred())
	DeferCleanup(db.Close)
	r, err := postgres.NewRelay(context.Background(), db, opts, zap.NewNop())
	Expect(err).NotTo(HaveOccurred())
	DeferCleanup(r.Close)
	return r
}

var _ = porttest.DescribeAppendRelay("PostgreSQL", func() porttest.RelayPair {
	opts := postgres.RelayOptions{LeaseTTL: time.Second}
	a := replica(opts)
	return porttest.RelayPair{A: a, B: replica(opts), StopA: a.Close}
})

var _ = Describe("Relay handover", func() {
	It("moves a key at once when its holder's database session ends, long before the lease expires", func() {
		ctx := context.Background()
		opts := postgres.RelayOptions{LeaseTTL: time.Minute}
		a, b := replica(opts), replica(opts)
		key := "handover-" + time.Now().Format("150405.000000000")
		l, err := a.Acquire(ctx, key, func([]byte) {})
		Expect(err).NotTo(HaveOccurred())
		Expect(l.Publish(ctx, [][]byte{[]byte("from A")}, nil)).To(Succeed())
		_, err = b.Acquire(ctx, key, func([]byte) {})
		Expect(err).To(MatchError(ContainSubstring("leased by another replica")), "a live holder keeps its key")
		page, err := b.Follow(ctx, key, 0)
		Expect(err).NotTo(HaveOccurred())
		Expect(page.Held).To(BeTrue())

		a.Close() // its listening connection, and the advisory lock on it, end as a killed replica's do
		start := time.Now()
		Eventually(func() bool {
			page, err := b.Follow(ctx, key, 0)
			return err == nil && !page.Held
		}).WithTimeout(5*time.Second).WithPolling(20*time.Millisecond).Should(BeTrue(), "a follower sees the owner gone")
		next, err := b.Acquire(ctx, key, func([]byte) {})
		Expect(err).NotTo(HaveOccurred())
		defer next.Release(false)
		Expect(time.Since(start)).To(BeNumerically("<", 5*time.Second), "not the minute of the lease")
		Expect(next.Token()).To(BeNumerically(">", l.Token()))
	})
})
