package porttest

import (
	"context"
	"sync"
	"sync/atomic"
	"time"

	. "github.com/onsi/ginkgo/v2"
	. "github.com/onsi/gomega"

	"keygate/ports"
)

// BudgetHarness is one store's usage counters and run leases.
type BudgetHarness struct {
	Counter ports.UsageCounter
	Leases  ports.RunLeases
}

// DescribeBudgetStores declares the contract suites of ports.UsageCounter
// and ports.RunLeases. Concurrent specs run many goroutines against one
// store; on a server database each transaction takes its own connection,
// as requests on several replicas would.
func DescribeBudgetStores(name string, open func() BudgetHarness) bool {
	return Describe(name+" budget stores", func() {
		var (
			h    BudgetHarness
			ctx  context.Context
			user string
		)
		BeforeEach(func() { h, ctx, user = open(), context.Background(), uniq("user") })

		Describe("UsageCounter", func() {
			It("reads zero for a period nothing was counted in", func() {
				tokens, cost, err := h.Counter.PeriodUsage(ctx, user, "d2026-11-30")
				Expect(err).NotTo(HaveOccurred())
				Expect([]int64{tokens, cost}).To(Equal([]int64{0, 0}))
			})

			It("adds to every named period and keeps users apart", func() {
				periods := []string{"d2026-11-30", "m2026-11"}
				Expect(h.Counter.AddUsage(ctx, user, periods, 100, 7)).To(Succeed())
				Expect(h.Counter.AddUsage(ctx, user, periods[1:], 50, 3)).To(Succeed())
				Expect(h.Counter.AddUsage(ctx, uniq("user"), periods, 1000, 1000)).To(Succeed())
				tokens, cost, err := h.Counter.PeriodUsage(ctx, user, "d2026-11-30")
				Expect(err).NotTo(HaveOccurred())
				Expect([]int64{tokens, cost}).To(Equal([]int64{100, 7}))
				tokens, cost, _ = h.Counter.PeriodUsage(ctx, user, "m2026-11")
				Expect([]int64{tokens, cost}).To(Equal([]int64{150, 10}))
			})

			It("loses no addition when many callers add at once", func() {
				var wg sync.WaitGroup
				for range 20 {
					wg.Go(func() {
						defer GinkgoRecover()
						Expect(h.Counter.AddUsage(ctx, user, []string{"m2026-11"}, 1, 2)).To(Succeed())
					})
				}
				wg.Wait()
				tokens, cost, _ := h.Counter.PeriodUsage(ctx, user, "m2026-11")
				Expect([]int64{tokens, cost}).To(Equal([]int64{20, 40}))
			})
		})

		Describe("RunLeases", func() {
			var until time.Time
			BeforeEach(func() { until = time.Now().Add(time.Hour) })

			It("grants leases up to the limit, renews a held one and grants again after a release", func() {
				run1, run2, run3 := uniq("run"), uniq("run"), uniq("run")
				Expect(h.Leases.AcquireRun(ctx, user, run1, 2, time.Now(), until)).To(BeTrue())
				Expect(h.Leases.AcquireRun(ctx, user, run2, 2, time.Now(), until)).To(BeTrue())
				Expect(h.Leases.AcquireRun(ctx, user, run3, 2, time.Now(), until)).To(BeFalse())
				Expect(h.Leases.AcquireRun(ctx, user, run1, 2, time.Now(), until.Add(time.Hour))).To(BeTrue(), "renewal")
				Expect(h.Leases.ReleaseRun(ctx, run2)).To(Succeed())
				Expect(h.Leases.AcquireRun(ctx, user, run3, 2, time.Now(), until)).To(BeTrue())
			})

			It("counts no expired lease, so a dead replica's runs stop counting", func() {
				Expect(h.Leases.AcquireRun(ctx, user, uniq("run"), 1, time.Now(), time.Now().Add(-time.Minute))).To(BeTrue())
				Expect(h.Leases.AcquireRun(ctx, user, uniq("run"), 1, time.Now(), until)).To(BeTrue())
			})

			It("counts each user's leases on their own", func() {
				Expect(h.Leases.AcquireRun(ctx, user, uniq("run"), 1, time.Now(), until)).To(BeTrue())
				Expect(h.Leases.AcquireRun(ctx, uniq("user"), uniq("run"), 1, time.Now(), until)).To(BeTrue())
			})

			It("reports a run held only while its lease is unexpired and not released", func() {
				held, expired, never := uniq("run"), uniq("run"), uniq("run")
				Expect(h.Leases.AcquireRun(ctx, user, held, 2, time.Now(), until)).To(BeTrue())
				Expect(h.Leases.AcquireRun(ctx, user, expired, 2, time.Now(), time.Now().Add(-time.Minute))).To(BeTrue())
				Expect(h.Leases.HeldRun(ctx, held, time.Now())).To(BeTrue())
				Expect(h.Leases.HeldRun(ctx, held, until.Add(time.Second))).To(BeFalse(), "past its expiry")
				Expect(h.Leases.HeldRun(ctx, expired, time.Now())).To(BeFalse())
				Expect(h.Leases.HeldRun(ctx, never, time.Now())).To(BeFalse())
				Expect(h.Leases.ReleaseRun(ctx, held)).To(Succeed())
				Expect(h.Leases.HeldRun(ctx, held, time.Now())).To(BeFalse(), "released")
			})

			It("releases an unknown run without an error", func() {
				Expect(h.Leases.ReleaseRun(ctx, uniq("run"))).To(Succeed())
			})

			It("never grants more than the limit to concurrent acquisitions", func() {
				var granted atomic.Int32
				var wg sync.WaitGroup
				for range 12 {
					wg.Go(func() {
						defer GinkgoRecover()
						ok, err := h.Leases.AcquireRun(ctx, user, uniq("run"), 3, time.Now(), until)
						Expect(err).NotTo(HaveOccurred())
						if ok {
							granted.Add(1)
						}
					})
				}
				wg.Wait()
				Expect(granted.Load()).To(BeEquivalentTo(3))
			})
		})
	})
}
