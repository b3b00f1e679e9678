package porttest

import (
	"context"
	"sync"

	. "github.com/onsi/ginkgo/v2"
	. "github.com/onsi/gomega"

	"keygate/domain/cursorcloud"
	"keygate/ports"
)

// DescribeCloudUsageStore declares the contract suite of
// ports.CloudUsageStore.
func DescribeCloudUsageStore(name string, open func() ports.CloudUsageStore) bool {
	return Describe(name+" CloudUsageStore", func() {
		var (
			s     ports.CloudUsageStore
			ctx   context.Context
			alice string
			bob   string
		)
		route := cursorcloud.Route{Service: "aiserver.v1.AiService", Method: "StreamCpp"}
		meta := cursorcloud.Route{Service: "aiserver.v1.DashboardService", Method: "GetUserPrivacyMode"}
		BeforeEach(func() { s, ctx, alice, bob = open(), context.Background(), uniq("alice"), uniq("bob") })

		row := func(day, user string, r cursorcloud.Route, d cursorcloud.Decision, n, up, down int64) cursorcloud.DayUsage {
			return cursorcloud.DayUsage{Day: day, UserID: user, Route: r, Decision: d, Requests: n, Up: up, Down: down}
		}

		It("adds counts to the row of the same day, user, route and decision", func() {
			Expect(s.AddCloudUsage(ctx, []cursorcloud.DayUsage{
				row("2026-12-01", alice, route, cursorcloud.Refused, 2, 0, 0),
				row("2026-12-01", alice, meta, cursorcloud.Passed, 1, 10, 20),
			})).To(Succeed())
			Expect(s.AddCloudUsage(ctx, []cursorcloud.DayUsage{
				row("2026-12-01", alice, meta, cursorcloud.Passed, 3, 5, 6),
				row("2026-12-02", alice, meta, cursorcloud.Passed, 1, 1, 1),
			})).To(Succeed())
			got, err := s.ListCloudUsage(ctx, ports.CloudUsageQuery{UserID: alice})
			Expect(err).NotTo(HaveOccurred())
			Expect(got).To(Equal([]cursorcloud.DayUsage{
				row("2026-12-02", alice, meta, cursorcloud.Passed, 1, 1, 1),
				row("2026-12-01", alice, meta, cursorcloud.Passed, 4, 15, 26),
				row("2026-12-01", alice, route, cursorcloud.Refused, 2, 0, 0),
			}))
		})

		It("keeps users apart, and lists everyone's for an empty user, within the days and the limit asked", func() {
			Expect(s.AddCloudUsage(ctx, []cursorcloud.DayUsage{
				row("2026-12-01", alice, meta, cursorcloud.Passed, 1, 1, 1),
				row("2026-12-03", bob, meta, cursorcloud.Passed, 5, 1, 1),
			})).To(Succeed())
			mine, err := s.ListCloudUsage(ctx, ports.CloudUsageQuery{UserID: bob})
			Expect(err).NotTo(HaveOccurred())
			Expect(mine).To(ConsistOf(row("2026-12-03", bob, meta, cursorcloud.Passed, 5, 1, 1)))
			all, err := s.ListCloudUsage(ctx, ports.CloudUsageQuery{})
			Expect(err).NotTo(HaveOccurred())
			Expect(all).To(ContainElements(row("2026-12-03", bob, meta, cursorcloud.Passed, 5, 1, 1),
				row("2026-12-01", alice, meta, cursorcloud.Passed, 1, 1, 1)))
			window, err := s.ListCloudUsage(ctx, ports.CloudUsageQuery{UserID: alice, Since: "2026-12-02", Until: "2026-12-31"})
			Expect(err).NotTo(HaveOccurred())
			Expect(window).To(BeEmpty())
			Expect(s.AddCloudUsage(ctx, []cursorcloud.DayUsage{row("2026-12-02", alice, route, cursorcloud.Refused, 1, 0, 0)})).To(Succeed())
			one, err := s.ListCloudUsage(ctx, ports.CloudUsageQuery{UserID: alice, Limit: 1})
			Expect(err).NotTo(HaveOccurred())
			Expect(one).To(Equal([]cursorcloud.DayUsage{row("2026-12-02", alice, route, cursorcloud.Refused, 1, 0, 0)}))
		})

		It("loses no addition when many callers add at once", func() {
			var wg sync.WaitGroup
			for range 16 {
				wg.Go(func() {
					defer GinkgoRecover()
					Expect(s.AddCloudUsage(ctx, []cursorcloud.DayUsage{row("2026-12-05", alice, meta, cursorcloud.Passed, 1, 2, 3)})).To(Succeed())
				})
			}
			wg.Wait()
			got, err := s.ListCloudUsage(ctx, ports.CloudUsageQuery{UserID: alice})
			Expect(err).NotTo(HaveOccurred())
			Expect(got).To(Equal([]cursorcloud.DayUsage{row("2026-12-05", alice, meta, cursorcloud.Passed, 16, 32, 48)}))
		})

		It("returns the context's error when cancelled", func() {
			cctx, cancel := context.WithCancel(ctx)
			cancel()
			Expect(s.AddCloudUsage(cctx, []cursorcloud.DayUsage{row("2026-12-06", alice, meta, cursorcloud.Passed, 1, 1, 1)})).To(MatchError(context.Canceled))
			_, err := s.ListCloudUsage(cctx, ports.CloudUsageQuery{UserID: alice})
			Expect(err).To(MatchError(context.Canceled))
		})
	})
}
