package porttest

import (
	"context"
	"sync"
	"sync/atomic"
	"time"

	. "github.com/onsi/ginkgo/v2"
	. "github.com/onsi/gomega"

	"keygate/domain/routing"
	"keygate/ports"
)

func describeRouting(open Factory) {
	Describe("RouteHealth", func() {
		var (
			rh  ports.RouteHealth
			ctx context.Context
			at  time.Time
		)
		BeforeEach(func() {
			rh, ctx = open().Stores.RouteHealth, context.Background()
			at = time.Now().UTC().Truncate(time.Millisecond)
		})

		It("knows nothing of a subject never recorded", func() {
			got, err := rh.Health(ctx, []string{uniq("key:")})
			Expect(err).NotTo(HaveOccurred())
			Expect(got).To(BeEmpty())
			got, err = rh.Health(ctx, nil)
			Expect(err).NotTo(HaveOccurred())
			Expect(got).To(BeEmpty())
		})

		It("counts failures, keeps the later rest and the last error, and forgets them on a success", func() {
			s := uniq("key:")
			h, err := rh.RecordFailure(ctx, s, routing.Failure{At: at, Message: "401 invalid key", Auth: true, CoolUntil: at.Add(time.Minute)})
			Expect(err).NotTo(HaveOccurred())
			Expect(h.Failures).To(Equal(1))
			Expect(h.AuthFailures).To(Equal(1))
			h, err = rh.RecordFailure(ctx, s, routing.Failure{At: at.Add(time.Second), Message: "429", CoolUntil: at.Add(5 * time.Second)})
			Expect(err).NotTo(HaveOccurred())
			Expect(h).To(Equal(routing.Health{CoolUntil: at.Add(time.Minute), LastError: "429", LastErrorAt: at.Add(time.Second),
				Failures: 2, AuthFailures: 1}))
			got, err := rh.Health(ctx, []string{s, uniq("key:")})
			Expect(err).NotTo(HaveOccurred())
			Expect(got).To(Equal(map[string]routing.Health{s: h}))

			Expect(rh.RecordSuccess(ctx, s, at.Add(2*time.Second))).To(Succeed())
			got, err = rh.Health(ctx, []string{s})
			Expect(err).NotTo(HaveOccurred())
			Expect(got[s]).To(Equal(routing.Health{LastError: "429", LastErrorAt: at.Add(time.Second)}))
			Expect(got[s].Cooling(at)).To(BeFalse())
		})

		It("counts every one of many failures recorded at once", func() {
			s := uniq("target:")
			var wg sync.WaitGroup
			for range 8 {
				wg.Add(1)
				go func() {
					defer GinkgoRecover()
					defer wg.Done()
					_, err := rh.RecordFailure(ctx, s, routing.Failure{At: at, Message: "503", CoolUntil: at.Add(time.Second)})
					Expect(err).NotTo(HaveOccurred())
				}()
			}
			wg.Wait()
			got, err := rh.Health(ctx, []string{s})
			Expect(err).NotTo(HaveOccurred())
			Expect(got[s].Failures).To(Equal(8))
		})

		It("records nothing on a cancelled context", func() {
			s := uniq("key:")
			_, err := rh.RecordFailure(cancelled(ctx), s, routing.Failure{At: at, Message: "x"})
			Expect(err).To(HaveOccurred())
			got, err := rh.Health(ctx, []string{s})
			Expect(err).NotTo(HaveOccurred())
			Expect(got).To(BeEmpty())
		})
	})

	Describe("RouteAffinity", func() {
		It("remembers the latest target per conversation and route", func(ctx SpecContext) {
			ra := open().Stores.RouteAffinity
			conv, route := uniq("conv"), uniq("alias")
			_, err := ra.Affinity(ctx, conv, route)
			Expect(err).To(MatchError(ports.ErrNotFound))
			at := time.Now()
			Expect(ra.SetAffinity(ctx, conv, route, "model-a", at)).To(Succeed())
			Expect(ra.SetAffinity(ctx, conv, uniq("alias"), "model-x", at)).To(Succeed())
			Expect(ra.Affinity(ctx, conv, route)).To(Equal("model-a"))
			Expect(ra.SetAffinity(ctx, conv, route, "model-b", at.Add(time.Second))).To(Succeed())
			Expect(ra.Affinity(ctx, conv, route)).To(Equal("model-b"))
		})
	})

	Describe("AliasStore", func() {
		var (
			as  ports.AliasStore
			ctx context.Context
			a   ports.Alias
		)
		BeforeEach(func() {
			as, ctx = open().Stores.Aliases, context.Background()
			a = ports.Alias{ID: uniq("alias"), SortOrder: 3, DisplayName: "Sonnet (any)", GroupName: "Claude", Tooltip: "failover",
				Enabled: true, Strategy: routing.TargetsWeighted, FirstTokenTimeout: 20 * time.Second,
				Targets: []ports.AliasTarget{{ModelID: "m-east", Weight: 3}, {ModelID: "m-west", Weight: 1, Drained: true}}}
		})

		It("stores an alias with its targets in order and keeps CreatedAt on replace", func() {
			Expect(as.PutAlias(ctx, a)).To(Succeed())
			first, err := as.Alias(ctx, a.ID)
			Expect(err).NotTo(HaveOccurred())
			Expect(first.Strategy).To(Equal(routing.TargetsWeighted))
			Expect(first.FirstTokenTimeout).To(Equal(20 * time.Second))
			Expect(first.Targets).To(Equal(a.Targets))
			Expect(first.CreatedAt).To(BeTemporally("~", time.Now(), time.Minute))

			a.Targets = []ports.AliasTarget{{ModelID: "m-west", Weight: 1}, {ModelID: "m-east", Weight: 3}, {ModelID: "m-north", Weight: 1}}
			a.DisplayName = "Sonnet"
			Expect(as.PutAlias(ctx, a)).To(Succeed())
			second, err := as.Alias(ctx, a.ID)
			Expect(err).NotTo(HaveOccurred())
			Expect(second.DisplayName).To(Equal("Sonnet"))
			Expect(second.Targets).To(Equal(a.Targets))
			Expect(second.CreatedAt).To(Equal(first.CreatedAt))
		})

		It("lists aliases by sort order and deletes them with their targets", func() {
			early := a
			early.ID, early.SortOrder = uniq("alias"), -1
			Expect(as.PutAlias(ctx, a)).To(Succeed())
			Expect(as.PutAlias(ctx, early)).To(Succeed())
			all, err := as.Aliases(ctx)
			Expect(err).NotTo(HaveOccurred())
			var ids []string
			for _, x := range all {
				if x.ID == a.ID || x.ID == early.ID {
					ids = append(ids, x.ID)
					Expect(x.Targets).To(HaveLen(2))
				}
			}
			Expect(ids).To(Equal([]string{early.ID, a.ID}))
			Expect(as.DeleteAlias(ctx, a.ID)).To(Succeed())
			_, err = as.Alias(ctx, a.ID)
			Expect(err).To(MatchError(ports.ErrNotFound))
			Expect(as.DeleteAlias(ctx, a.ID)).To(MatchError(ports.ErrNotFound))
		})
	})
}

func describeRateWindows(open Factory) {
	Describe("RateWindows", func() {
		var (
			rw     ports.RateWindows
			ctx    context.Context
			window time.Time
			scope  string
		)
		BeforeEach(func() {
			rw, ctx, scope = open().Stores.RateWindows, context.Background(), uniq("user:")
			window = time.Now().UTC().Truncate(time.Minute)
		})

		It("admits requests up to the limit, then refuses without counting", func() {
			for i := range int64(3) {
				ok, requests, _, err := rw.Admit(ctx, scope, window, 3, 0)
				Expect(err).NotTo(HaveOccurred())
				Expect(ok).To(BeTrue())
				Expect(requests).To(Equal(i))
			}
			ok, requests, _, err := rw.Admit(ctx, scope, window, 3, 0)
			Expect(err).NotTo(HaveOccurred())
			Expect(ok).To(BeFalse())
			Expect(requests).To(Equal(int64(3)))
			ok, _, _, err = rw.Admit(ctx, scope, window.Add(time.Minute), 3, 0)
			Expect(err).NotTo(HaveOccurred())
			Expect(ok).To(BeTrue(), "the next minute is a window of its own")
		})

		It("refuses once the window's tokens reached the token limit", func() {
			ok, _, _, err := rw.Admit(ctx, scope, window, 0, 1000)
			Expect(err).NotTo(HaveOccurred())
			Expect(ok).To(BeTrue())
			Expect(rw.AddTokens(ctx, scope, window, 999)).To(Succeed())
			ok, _, tokens, err := rw.Admit(ctx, scope, window, 0, 1000)
			Expect(err).NotTo(HaveOccurred())
			Expect(ok).To(BeTrue())
			Expect(tokens).To(Equal(int64(999)))
			Expect(rw.AddTokens(ctx, scope, window, 1)).To(Succeed())
			ok, _, tokens, err = rw.Admit(ctx, scope, window, 0, 1000)
			Expect(err).NotTo(HaveOccurred())
			Expect(ok).To(BeFalse())
			Expect(tokens).To(Equal(int64(1000)))
		})

		It("never admits more than the limit, however many ask at once", func() {
			var admitted atomic.Int64
			var wg sync.WaitGroup
			for range 12 {
				wg.Add(1)
				go func() {
					defer GinkgoRecover()
					defer wg.Done()
					ok, _, _, err := rw.Admit(ctx, scope, window, 5, 0)
					Expect(err).NotTo(HaveOccurred())
					if ok {
						admitted.Add(1)
					}
				}()
			}
			wg.Wait()
			Expect(admitted.Load()).To(Equal(int64(5)))
		})
	})
}
