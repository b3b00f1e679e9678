package postgres_test

import (
	"context"
	"time"

	"github.com/jackc/pgx/v5"
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

var _ = Describe("Relay listener", func() {
	It("wakes a follower after its listening connection was cut: for output published while it was down, and after", func() {
		ctx := context.Background()
		opts := postgres.RelayOptions{LeaseTTL: time.Minute}
		a, b := replica(opts), replica(opts)
		key := "listener-" + time.Now().Format("150405.000000000")
		l, err := a.Acquire(ctx, key, func([]byte) {})
		Expect(err).NotTo(HaveOccurred())
		DeferCleanup(func() { l.Release(false) })
		wake, stop := b.Changes(key)
		DeferCleanup(stop)

		By("terminating the follower's listening session, as a dropped connection would end it")
		admin, err := pgx.Connect(ctx, dsn)
		Expect(err).NotTo(HaveOccurred())
		DeferCleanup(func() { _ = admin.Close(context.Background()) })
		lock := b.ListenerLock()
		var cut bool
		Expect(admin.QueryRow(ctx, `SELECT coalesce(bool_or(pg_terminate_backend(pid)), false) FROM pg_locks
			WHERE locktype = 'advisory' AND granted AND objsubid = 1 AND ((classid::BIGINT << 32) | objid::BIGINT) = $1`, lock).Scan(&cut)).To(Succeed())
		Expect(cut).To(BeTrue())
		Expect(l.Publish(ctx, [][]byte{[]byte("while down")}, nil)).To(Succeed())
		Eventually(wake).WithTimeout(10*time.Second).Should(Receive(), "woken for what was published while the listener was down")

		By("listening again")
		Eventually(b.ListenerLock).WithTimeout(10 * time.Second).ShouldNot(Or(BeZero(), Equal(lock)))
		Expect(l.Publish(ctx, [][]byte{[]byte("after")}, nil)).To(Succeed())
		Eventually(wake).WithTimeout(10*time.Second).Should(Receive(), "woken for what was published after")
		page, err := b.Follow(ctx, key, 0)
		Expect(err).NotTo(HaveOccurred())
		Expect(page.Frames).To(Equal([][]byte{[]byte("while down"), []byte("after")}))
	})
})
