package porttest

import (
	"context"
	"sync"
	"time"

	. "github.com/onsi/ginkgo/v2"
	. "github.com/onsi/gomega"

	"keygate/domain/budget"
	"keygate/ports"
)

// BudgetLimitFactory opens a budget limit store for one spec and registers
// its cleanup with DeferCleanup. Stores may share data between specs:
// every spec uses its own users and teams, and reads the revision
// relative to what it saw.
type BudgetLimitFactory func() ports.BudgetLimitStore

// DescribeBudgetLimitStores declares the contract suite of
// ports.BudgetLimitStore for one implementation.
func DescribeBudgetLimitStores(name string, open BudgetLimitFactory) bool {
	return Describe(name+" budget limits", func() {
		var (
			st  ports.BudgetLimitStore
			ctx context.Context
			at  = time.Date(2026, 12, 7, 5, 0, 0, 123e6, time.UTC)
		)
		BeforeEach(func() { st, ctx = open(), context.Background() })
		find := func(s budget.Scope) (budget.ScopedLimits, bool) {
			GinkgoHelper()
			all, _, err := st.BudgetLimits(ctx)
			Expect(err).NotTo(HaveOccurred())
			for _, l := range all {
				if l.Scope == s {
					return l, true
				}
			}
			return budget.ScopedLimits{}, false
		}

		It("stores, replaces and deletes limits by scope, each change raising the revision", func() {
			user := budget.Scope{Kind: budget.ScopeUser, ID: uniq("ada@example.com")}
			team := budget.Scope{Kind: budget.ScopeTeam, ID: uniq("platform ü")}
			r0, err := st.BudgetRevision(ctx)
			Expect(err).NotTo(HaveOccurred())
			full := budget.Limits{TokensPerDay: 1, CostPerMonth: 2, ConcurrentRuns: 3, ConcurrentSubagents: 4, RequestsPerMinute: 5, TokensPerMinute: 6}
			r1, err := st.PutBudgetLimits(ctx, budget.ScopedLimits{Scope: user, Limits: full}, at)
			Expect(err).NotTo(HaveOccurred())
			Expect(r1).To(BeNumerically(">", r0))
			r2, err := st.PutBudgetLimits(ctx, budget.ScopedLimits{Scope: team, Limits: budget.Limits{CostPerMonth: 9}}, at)
			Expect(err).NotTo(HaveOccurred())
			Expect(r2).To(BeNumerically(">", r1))

			got, ok := find(user)
			Expect(ok).To(BeTrue())
			Expect(got.Limits).To(Equal(full), "every field round-trips")
			Expect(got.UpdatedAt.Equal(at)).To(BeTrue(), "stamped %v", got.UpdatedAt)
			_, rev, err := st.BudgetLimits(ctx)
			Expect(err).NotTo(HaveOccurred())
			Expect(rev).To(BeNumerically(">=", r2))

			r3, err := st.PutBudgetLimits(ctx, budget.ScopedLimits{Scope: user, Limits: budget.Limits{TokensPerDay: 7}}, at.Add(time.Minute))
			Expect(err).NotTo(HaveOccurred())
			Expect(r3).To(BeNumerically(">", r2))
			got, _ = find(user)
			Expect(got.Limits).To(Equal(budget.Limits{TokensPerDay: 7}), "a put replaces every field")

			r4, err := st.DeleteBudgetLimits(ctx, user)
			Expect(err).NotTo(HaveOccurred())
			Expect(r4).To(BeNumerically(">", r3))
			_, ok = find(user)
			Expect(ok).To(BeFalse())
			_, err = st.DeleteBudgetLimits(ctx, user)
			Expect(err).To(MatchError(ports.ErrNotFound))
			now, err := st.BudgetRevision(ctx)
			Expect(err).NotTo(HaveOccurred())
			Expect(now).To(BeNumerically(">=", r4), "a delete of nothing changes nothing")
			_, ok = find(team)
			Expect(ok).To(BeTrue(), "a user and a team are apart")
		})

		It("keeps a user and a team of the same name apart", func() {
			id := uniq("same")
			_, err := st.PutBudgetLimits(ctx, budget.ScopedLimits{Scope: budget.Scope{Kind: budget.ScopeUser, ID: id}, Limits: budget.Limits{TokensPerDay: 1}}, at)
			Expect(err).NotTo(HaveOccurred())
			_, err = st.PutBudgetLimits(ctx, budget.ScopedLimits{Scope: budget.Scope{Kind: budget.ScopeTeam, ID: id}, Limits: budget.Limits{TokensPerDay: 2}}, at)
			Expect(err).NotTo(HaveOccurred())
			u, _ := find(budget.Scope{Kind: budget.ScopeUser, ID: id})
			t, _ := find(budget.Scope{Kind: budget.ScopeTeam, ID: id})
			Expect(u.Limits.TokensPerDay).To(Equal(int64(1)))
			Expect(t.Limits.TokensPerDay).To(Equal(int64(2)))
		})

		It("refuses an invalid scope or negative limits", func() {
			_, err := st.PutBudgetLimits(ctx, budget.ScopedLimits{Scope: budget.Scope{Kind: budget.ScopeUser}}, at)
			Expect(err).To(MatchError(budget.ErrInvalidScope))
			s := budget.Scope{Kind: budget.ScopeUser, ID: uniq("neg")}
			_, err = st.PutBudgetLimits(ctx, budget.ScopedLimits{Scope: s, Limits: budget.Limits{TokensPerDay: -1}}, at)
			Expect(err).To(MatchError(budget.ErrInvalidLimits))
			_, ok := find(s)
			Expect(ok).To(BeFalse())
		})

		It("lets one claimant of an alert win, however many race", func() {
			key := uniq("alert")
			var (
				wg   sync.WaitGroup
				mu   sync.Mutex
				wins int
			)
			for range 8 {
				wg.Add(1)
				go func() {
					defer GinkgoRecover()
					defer wg.Done()
					ok, err := st.ClaimBudgetAlert(ctx, key, at)
					Expect(err).NotTo(HaveOccurred())
					if ok {
						mu.Lock()
						wins++
						mu.Unlock()
					}
				}()
			}
			wg.Wait()
			Expect(wins).To(Equal(1))
			ok, err := st.ClaimBudgetAlert(ctx, uniq("alert"), at)
			Expect(err).NotTo(HaveOccurred())
			Expect(ok).To(BeTrue(), "another key is its own")
		})

		It("honours a cancelled context", func() {
			s := budget.Scope{Kind: budget.ScopeTeam, ID: uniq("c")}
			_, err := st.PutBudgetLimits(cancelled(ctx), budget.ScopedLimits{Scope: s}, at)
			Expect(err).To(MatchError(context.Canceled))
			_, ok := find(s)
			Expect(ok).To(BeFalse())
			_, err = st.BudgetRevision(cancelled(ctx))
			Expect(err).To(MatchError(context.Canceled))
		})
	})
}
