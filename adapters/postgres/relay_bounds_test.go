package postgres_test

import (
	"bytes"
	"context"
	"fmt"
	"sync"
	"time"

	. "github.com/onsi/ginkgo/v2"
	. "github.com/onsi/gomega"
	"go.uber.org/zap"

	"keygate/adapters/pgtest"
	"keygate/adapters/postgres"
	"keygate/ports"
)

var _ = Describe("PostgreSQL AppendRelay bounds", func() {
	var (
		ctx  context.Context
		db   *postgres.DB
		seq  int
		key  func(string) string
		kib  = func(n int) []byte { return bytes.Repeat([]byte("x"), n<<10) }
		open = func(opts postgres.RelayOptions) *postgres.Relay {
			r, err := postgres.NewRelay(ctx, db, opts, zap.NewNop())
			Expect(err).NotTo(HaveOccurred())
			DeferCleanup(r.Close)
			return r
		}
	)

	BeforeEach(func(sctx SpecContext) {
		ctx = context.Background()
		// A database of its own: the overall bound counts every owner's
		// payloads, and other specs leave theirs behind.
		fresh, err := pgtest.New(sctx)
		Expect(err).NotTo(HaveOccurred(), "the PostgreSQL specs need a server and never skip")
		DeferCleanup(fresh.Close)
		db, err = postgres.Open(ctx, fresh.DSN, zap.NewNop())
		Expect(err).NotTo(HaveOccurred())
		DeferCleanup(db.Close)
		key = func(user string) string { seq++; return fmt.Sprintf("%s/request-%d", user, seq) }
	})

	// claimAll takes k's lease on r and returns what was waiting for it.
	claimAll := func(r *postgres.Relay, k string) []string {
		var mu sync.Mutex
		var got []string
		l, err := r.Acquire(ctx, k, func(p []byte) {
			mu.Lock()
			defer mu.Unlock()
			got = append(got, string(p))
		})
		Expect(err).NotTo(HaveOccurred())
		l.Release(false)
		mu.Lock()
		defer mu.Unlock()
		return got
	}

	It("refuses the forward that takes its owner over the bound, storing nothing, while another owner's go on", func() {
		r := open(postgres.RelayOptions{MaxOwnerBytes: 10 << 10})
		alice := key("alice")
		Expect(r.Forward(ctx, "alice", alice, kib(4), false)).To(Succeed())
		Expect(r.Forward(ctx, "alice", alice, kib(4), false)).To(Succeed())
		err := r.Forward(ctx, "alice", alice, kib(4), false)
		Expect(err).To(MatchError(ports.ErrRelayFull))
		Expect(err).To(MatchError(ContainSubstring("limit 10240 per user")))
		Expect(r.Forward(ctx, "alice", key("alice"), kib(4), false)).To(MatchError(ports.ErrRelayFull), "the bound is the owner's, over all its keys")

		By("bob is not affected")
		Expect(r.Forward(ctx, "bob", key("bob"), kib(8), false)).To(Succeed())

		By("the refused payload was not stored, and a claim gives alice room again")
		Expect(claimAll(r, alice)).To(HaveLen(2))
		Expect(r.Forward(ctx, "alice", alice, kib(8), false)).To(Succeed())
	})

	It("bounds the payloads of all owners together", func() {
		r := open(postgres.RelayOptions{MaxOwnerBytes: 64 << 20, MaxBytes: 10 << 10})
		Expect(r.Forward(ctx, "alice", key("alice"), kib(6), false)).To(Succeed())
		err := r.Forward(ctx, "bob", key("bob"), kib(6), false)
		Expect(err).To(MatchError(ports.ErrRelayFull))
		Expect(err).To(MatchError(ContainSubstring("from all users")))
	})

	It("counts a tiny payload as a kibibyte, so a flood of them is bounded in rows too", func() {
		r := open(postgres.RelayOptions{MaxOwnerBytes: 10 << 10})
		k := key("alice")
		for range 10 {
			Expect(r.Forward(ctx, "alice", k, []byte("x"), false)).To(Succeed())
		}
		Expect(r.Forward(ctx, "alice", k, []byte("x"), false)).To(MatchError(ports.ErrRelayFull))
	})

	It("drops unclaimed payloads on its own timer while notifications keep coming, and gives their bytes back", func() {
		r := open(postgres.RelayOptions{MaxOwnerBytes: 10 << 10, Sweep: 100 * time.Millisecond, Retain: 200 * time.Millisecond})
		stale := key("alice")
		Expect(r.Forward(ctx, "alice", stale, kib(8), false)).To(Succeed())
		Expect(r.Forward(ctx, "alice", key("alice"), kib(8), false)).To(MatchError(ports.ErrRelayFull))

		By("keeping the listener busy: a claimed key gets a payload every 20 ms")
		busy := key("bob")
		l, err := r.Acquire(ctx, busy, func([]byte) {})
		Expect(err).NotTo(HaveOccurred())
		defer l.Release(false)
		stop := make(chan struct{})
		done := make(chan struct{})
		go func() {
			defer close(done)
			for {
				select {
				case <-stop:
					return
				case <-time.After(20 * time.Millisecond):
					_ = r.Forward(ctx, "bob", busy, []byte("tick"), false)
				}
			}
		}()
		defer func() { close(stop); <-done }()

		Eventually(func() error { return r.Forward(ctx, "alice", key("alice"), kib(8), false) }).WithTimeout(10 * time.Second).Should(Succeed())
		Expect(claimAll(r, stale)).To(BeEmpty(), "the stale payload is gone")
	})

	It("keeps a held lease's published output whole however old, and drops an ended lease's once its retention passed", func() {
		r := open(postgres.RelayOptions{Sweep: 100 * time.Millisecond, Retain: 300 * time.Millisecond})
		held, over := key("alice"), key("alice")
		frames := [][]byte{[]byte("one"), []byte("two")}
		lh, err := r.Acquire(ctx, held, func([]byte) {})
		Expect(err).NotTo(HaveOccurred())
		defer lh.Release(false)
		Expect(lh.Publish(ctx, frames, nil)).To(Succeed())
		lo, err := r.Acquire(ctx, over, func([]byte) {})
		Expect(err).NotTo(HaveOccurred())
		Expect(lo.Publish(ctx, frames, []byte("end"))).To(Succeed())
		lo.Release(true)

		Eventually(func() ([][]byte, error) {
			page, err := r.Follow(ctx, over, 0)
			return page.Frames, err
		}).WithTimeout(10 * time.Second).Should(BeEmpty())
		page, err := r.Follow(ctx, held, 0)
		Expect(err).NotTo(HaveOccurred())
		Expect(page.Frames).To(Equal(frames), "swept past the retention, yet whole")
	})
})
