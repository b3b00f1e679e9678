package company_test

import (
	"context"
	"errors"
	"fmt"
	"time"

	. "github.com/onsi/ginkgo/v2"
	. "github.com/onsi/gomega"
	"go.uber.org/zap"

	"keygate/adapters/pgtest"
	"keygate/adapters/postgres"
	"keygate/adapters/relstore"
	"keygate/adapters/sqlite"
	"keygate/app/company"
	"keygate/app/run/runtest"
	"keygate/domain/budget"
	"keygate/domain/identity"
	"keygate/domain/llm"
	"keygate/ports"
)

// usageProvider streams one text delta and then reports usage.
type usageProvider struct{ usage llm.Usage }

func (p usageProvider) Stream(context.Context, ports.ModelCall) (ports.ModelStream, error) {
	u := p.usage
	return &eventStream{events: []llm.Event{
		{Kind: llm.EventStart}, {Kind: llm.EventTextDelta, Text: "hi"}, {Kind: llm.EventUsage, Usage: &u},
		{Kind: llm.EventDone, Finish: llm.FinishStop},
	}}, nil
}

type eventStream struct {
	events []llm.Event
	i      int
}

func (s *eventStream) Next() bool       { s.i++; return s.i <= len(s.events) }
func (s *eventStream) Event() llm.Event { return s.events[s.i-1] }
func (s *eventStream) Err() error       { return nil }
func (s *eventStream) Close() error     { return nil }

var _ = Describe("Budgets", func() {
	var (
		ctx   context.Context
		clock *runtest.Clock
		store interface {
			ports.UsageCounter
			ports.RunLeases
		}
		budgets *company.Budgets
		ada     = identity.Identity{UserID: "ada"}
		call    = ports.ModelCall{Request: llm.Request{Model: "claude-x"}}
	)
	BeforeEach(func() {
		ctx, clock = identity.NewContext(context.Background(), ada), runtest.NewClock()
		db, err := sqlite.Open(ctx, GinkgoT().TempDir(), zap.NewNop())
		Expect(err).NotTo(HaveOccurred())
		DeferCleanup(db.Close)
		store = sqlite.NewStore(db).Budgets()
		budgets = company.NewBudgets(store, store, clock, company.BudgetPolicy{
			Default: budget.Limits{TokensPerDay: 1000, CostPerMonth: 50_000, ConcurrentRuns: 1},
			PerUser: map[string]budget.Limits{"vip": {}},
			Prices:  map[string]budget.Price{"claude-x": {Input: 3e6, Output: 15e6}},
		}, zap.NewNop())
	})
	// drain runs one call through the guarded provider.
	drain := func(p ports.ModelProvider, u llm.Usage) error {
		s, err := budgets.Provider(usageProvider{usage: u}).Stream(ctx, call)
		if err != nil {
			return err
		}
		for s.Next() {
		}
		return s.Close()
	}

	It("counts the tokens and cost a call reports against the caller's day and month", func() {
		Expect(drain(nil, llm.Usage{Input: 600, Output: 100, Known: llm.UsageInput | llm.UsageOutput})).To(Succeed())
		tokens, _, err := store.PeriodUsage(ctx, "ada", budget.DayKey(clock.Now()))
		Expect(err).NotTo(HaveOccurred())
		Expect(tokens).To(BeEquivalentTo(700))
		_, cost, _ := store.PeriodUsage(ctx, "ada", budget.MonthKey(clock.Now()))
		Expect(cost).To(BeEquivalentTo(600*3 + 100*15))
	})

	It("stops the next call once the daily tokens are spent, with a message for the Cursor user", func() {
		Expect(drain(nil, llm.Usage{Input: 1000})).To(Succeed())
		err := drain(nil, llm.Usage{Input: 1})
		var ex *budget.ExceededError
		Expect(err).To(BeAssignableToTypeOf(ex))
		Expect(err.Error()).To(ContainSubstring("tokens for today"))
	})

	It("lets the calls through again the next day", func() {
		Expect(drain(nil, llm.Usage{Input: 1000})).To(Succeed())
		clock.Advance(24 * time.Hour)
		Expect(drain(nil, llm.Usage{Input: 1})).To(Succeed())
	})

	It("stops calls once the monthly cost is spent", func() {
		Expect(drain(nil, llm.Usage{Output: 999})).To(Succeed()) // 14_985 micro-dollars
		Expect(store.AddUsage(ctx, "ada", []string{budget.MonthKey(clock.Now())}, 0, 40_000)).To(Succeed())
		err := drain(nil, llm.Usage{Input: 1})
		Expect(err).To(MatchError(ContainSubstring("for this month")))
	})

	It("applies a user's own limits instead of the default", func() {
		Expect(store.AddUsage(ctx, "vip", []string{budget.DayKey(clock.Now())}, 1e9, 0)).To(Succeed())
		Expect(budgets.Check(ctx, "vip")).To(Succeed())
	})

	It("refuses a call whose context names no user", func() {
		_, err := budgets.Provider(usageProvider{}).Stream(context.Background(), call)
		Expect(err).To(MatchError(company.ErrNoCaller))
	})

	Describe("concurrent runs", func() {
		It("refuses a second run while the first holds the user's only slot, and frees it at the end", func() {
			Expect(budgets.StartRun(ctx, "ada", "run-1")).To(Succeed())
			err := budgets.StartRun(ctx, "ada", "run-2")
			Expect(err).To(MatchError(ContainSubstring("agent runs in progress")))
			Expect(budgets.StartRun(ctx, "ada", "run-1")).To(Succeed(), "a run renews its own slot")
			Expect(budgets.EndRun(ctx, "run-1")).To(Succeed())
			Expect(budgets.StartRun(ctx, "ada", "run-2")).To(Succeed())
		})
	})
})

var _ = Describe("Budgets.HoldRun", func() {
	var (
		ctx     context.Context
		clock   *runtest.Clock
		budgets *company.Budgets
	)
	BeforeEach(func() {
		ctx, clock = context.Background(), runtest.NewClock()
		db, err := sqlite.Open(ctx, GinkgoT().TempDir(), zap.NewNop())
		Expect(err).NotTo(HaveOccurred())
		DeferCleanup(db.Close)
		st := sqlite.NewStore(db).Budgets()
		budgets = company.NewBudgets(st, st, clock, company.BudgetPolicy{
			Default: budget.Limits{ConcurrentRuns: 1}, LeaseTTL: 3 * time.Minute,
		}, zap.NewNop())
	})

	It("keeps the slot past the lease lifetime while the run lasts, and frees it at release", func() {
		release, err := budgets.HoldRun(ctx, "ada", "run-1")
		Expect(err).NotTo(HaveOccurred())
		for range 5 { // 5 minutes: longer than the 3-minute lease
			Eventually(clock.Waiters).Should(Equal(1), "the renewer waits for its next tick")
			clock.Advance(time.Minute)
		}
		Eventually(clock.Waiters).Should(Equal(1))
		Expect(budgets.StartRun(ctx, "ada", "run-2")).To(MatchError(ContainSubstring("agent runs in progress")))
		release()
		release()
		Expect(budgets.StartRun(ctx, "ada", "run-2")).To(Succeed())
	})

	It("lets an unlimited user run without taking a slot", func() {
		unlimited := company.NewBudgets(nil, nil, clock, company.BudgetPolicy{}, zap.NewNop())
		release, err := unlimited.HoldRun(ctx, "ada", "run-1")
		Expect(err).NotTo(HaveOccurred())
		release()
		Expect(clock.Waiters()).To(Equal(0))
	})
})

var _ = Describe("Budgets.HoldTurn", func() {
	var (
		ctx     context.Context
		budgets *company.Budgets
	)
	BeforeEach(func() {
		ctx = identity.NewContext(context.Background(), identity.Identity{UserID: "ada"})
		db, err := sqlite.Open(ctx, GinkgoT().TempDir(), zap.NewNop())
		Expect(err).NotTo(HaveOccurred())
		DeferCleanup(db.Close)
		st := sqlite.NewStore(db).Budgets()
		budgets = company.NewBudgets(st, st, runtest.NewClock(), company.BudgetPolicy{
			Default: budget.Limits{ConcurrentRuns: 1}}, zap.NewNop())
	})

	It("holds the caller's slot for a top-level turn and refuses another with the limit, until release", func() {
		release, err := budgets.HoldTurn(ctx, "req-1", "")
		Expect(err).NotTo(HaveOccurred())
		_, err = budgets.HoldTurn(ctx, "req-2", "")
		var exceeded *budget.ExceededError
		Expect(errors.As(err, &exceeded)).To(BeTrue(), "the refusal is the limit, for the user's error bubble")
		Expect(exceeded.Limit).To(Equal(budget.LimitConcurrentRuns))
		release()
		release2, err := budgets.HoldTurn(ctx, "req-2", "")
		Expect(err).NotTo(HaveOccurred())
		release2()
	})

	It("gives a subagent of the caller's live turn a subagent slot, up to the subagent limit", func() {
		release, err := budgets.HoldTurn(ctx, "req-1", "")
		Expect(err).NotTo(HaveOccurred())
		DeferCleanup(release)
		var children []func()
		for i := range budget.SubagentsPerRun {
			child, err := budgets.HoldTurn(ctx, fmt.Sprint("req-child-", i), "req-1")
			Expect(err).NotTo(HaveOccurred(), "the parent's run slot does not count against its subagents")
			children = append(children, child)
		}
		_, err = budgets.HoldTurn(ctx, "req-child-x", "req-1")
		var exceeded *budget.ExceededError
		Expect(errors.As(err, &exceeded)).To(BeTrue())
		Expect(exceeded.Limit).To(Equal(budget.LimitConcurrentSubagents))
		Expect(exceeded.Max).To(BeEquivalentTo(budget.SubagentsPerRun))
		children[0]()
		next, err := budgets.HoldTurn(ctx, "req-child-x", "req-1")
		Expect(err).NotTo(HaveOccurred(), "a finished subagent frees its slot")
		next()
	})

	It("counts a turn whose parent is no live turn of the caller as a top-level turn", func() {
		release, err := budgets.HoldTurn(ctx, "req-1", "")
		Expect(err).NotTo(HaveOccurred())
		DeferCleanup(release)
		By("a made-up parent")
		_, err = budgets.HoldTurn(ctx, "req-forged", "req-nobody")
		var exceeded *budget.ExceededError
		Expect(errors.As(err, &exceeded)).To(BeTrue())
		Expect(exceeded.Limit).To(Equal(budget.LimitConcurrentRuns))
		By("another user's live turn as parent")
		bob := identity.NewContext(context.Background(), identity.Identity{UserID: "bob"})
		bobs, err := budgets.HoldTurn(bob, "req-bob", "")
		Expect(err).NotTo(HaveOccurred())
		DeferCleanup(bobs)
		_, err = budgets.HoldTurn(ctx, "req-foreign-child", "req-bob")
		Expect(errors.As(err, &exceeded)).To(BeTrue())
		Expect(exceeded.Limit).To(Equal(budget.LimitConcurrentRuns))
		By("an ended parent")
		release()
		orphan, err := budgets.HoldTurn(ctx, "req-orphan", "req-1")
		Expect(err).NotTo(HaveOccurred())
		DeferCleanup(orphan)
		_, err = budgets.HoldTurn(ctx, "req-2", "")
		Expect(errors.As(err, &exceeded)).To(BeTrue(), "the orphan took the run slot")
	})

	It("bounds subagents by an explicit limit alone, leasing top-level turns without bounding them", func() {
		db, err := sqlite.Open(ctx, GinkgoT().TempDir(), zap.NewNop())
		Expect(err).NotTo(HaveOccurred())
		DeferCleanup(db.Close)
		st := sqlite.NewStore(db).Budgets()
		subOnly := company.NewBudgets(st, st, runtest.NewClock(), company.BudgetPolicy{
			Default: budget.Limits{ConcurrentSubagents: 1}}, zap.NewNop())
		for _, id := range []string{"req-1", "req-2"} {
			release, err := subOnly.HoldTurn(ctx, id, "")
			Expect(err).NotTo(HaveOccurred(), "no run limit")
			DeferCleanup(release)
		}
		child, err := subOnly.HoldTurn(ctx, "req-child", "req-1")
		Expect(err).NotTo(HaveOccurred())
		DeferCleanup(child)
		_, err = subOnly.HoldTurn(ctx, "req-child-2", "req-2")
		var exceeded *budget.ExceededError
		Expect(errors.As(err, &exceeded)).To(BeTrue())
		Expect(exceeded.Limit).To(Equal(budget.LimitConcurrentSubagents))
	})

	It("keeps two users' turns on the same request id apart", func() {
		bob := identity.NewContext(context.Background(), identity.Identity{UserID: "bob"})
		mine, err := budgets.HoldTurn(ctx, "req-same", "")
		Expect(err).NotTo(HaveOccurred())
		DeferCleanup(mine)
		bobs, err := budgets.HoldTurn(bob, "req-same", "")
		Expect(err).NotTo(HaveOccurred())
		bobs()
		_, err = budgets.HoldTurn(ctx, "req-2", "")
		Expect(err).To(HaveOccurred(), "bob's release freed bob's lease, not ada's")
	})

	It("holds no slot for a turn without a caller, which the Cursor path's stores refuse", func() {
		release, err := budgets.HoldTurn(context.Background(), "req-1", "")
		Expect(err).NotTo(HaveOccurred())
		release()
		mine, err := budgets.HoldTurn(ctx, "req-2", "")
		Expect(err).NotTo(HaveOccurred(), "the anonymous turn took no slot of anyone's")
		mine()
	})
})

var _ = Describe("BudgetPolicy.PriceOf", func() {
	It("prices calls with the function instead of the static table, so console price edits apply", func() {
		ctx := context.Background()
		db, err := sqlite.Open(ctx, GinkgoT().TempDir(), zap.NewNop())
		Expect(err).NotTo(HaveOccurred())
		DeferCleanup(db.Close)
		st, clock := sqlite.NewStore(db).Budgets(), runtest.NewClock()
		b := company.NewBudgets(st, st, clock, company.BudgetPolicy{
			Prices:  map[string]budget.Price{"m": {Input: 1e6}},
			PriceOf: func(model string) budget.Price { return budget.Price{Input: 2e6} },
		}, zap.NewNop())
		Expect(b.Record(ctx, "ada", "m", llm.Usage{Input: 1000})).To(Succeed())
		_, cost, err := st.PeriodUsage(ctx, "ada", budget.MonthKey(clock.Now()))
		Expect(err).NotTo(HaveOccurred())
		Expect(cost).To(BeEquivalentTo(2000))
	})
})

var _ = Describe("Per-minute limits", func() {
	var (
		ctx   context.Context
		clock *runtest.Clock
		ada   = identity.Identity{UserID: "ada"}
		call  = ports.ModelCall{Request: llm.Request{Model: "claude-x"}}
	)
	// budgetsOn is a budget use case over store with limits, as one replica
	// has it.
	budgetsOn := func(st *relstore.Store, limits budget.Limits) *company.Budgets {
		b := company.NewBudgets(st.Budgets(), st.Budgets(), clock, company.BudgetPolicy{Default: limits}, zap.NewNop())
		b.LimitRatesWith(st.Routing())
		return b
	}
	drain := func(b *company.Budgets, u llm.Usage) error {
		s, err := b.Provider(usageProvider{usage: u}).Stream(ctx, call)
		if err != nil {
			return err
		}
		for s.Next() {
		}
		return s.Close()
	}
	sqliteStore := func() *relstore.Store {
		db, err := sqlite.Open(ctx, GinkgoT().TempDir(), zap.NewNop())
		Expect(err).NotTo(HaveOccurred())
		DeferCleanup(db.Close)
		return sqlite.NewStore(db)
	}
	BeforeEach(func() {
		ctx, clock = identity.NewContext(context.Background(), ada), runtest.NewClock()
	})

	It("refuses a user's call over the requests per minute, saying when to try again, and lets it through the next minute", func() {
		b := budgetsOn(sqliteStore(), budget.Limits{RequestsPerMinute: 2})
		Expect(drain(b, llm.Usage{Input: 1})).To(Succeed())
		Expect(drain(b, llm.Usage{Input: 1})).To(Succeed())
		err := drain(b, llm.Usage{Input: 1})
		var ex *budget.ExceededError
		Expect(errors.As(err, &ex)).To(BeTrue())
		Expect(ex.Limit).To(Equal(budget.LimitRequestsPerMinute))
		Expect(err.Error()).To(ContainSubstring("2 of your 2 model requests for this minute"))
		clock.Advance(time.Minute)
		Expect(drain(b, llm.Usage{Input: 1})).To(Succeed())
	})

	It("refuses a user's call once the minute's tokens are spent", func() {
		b := budgetsOn(sqliteStore(), budget.Limits{TokensPerMinute: 100})
		Expect(drain(b, llm.Usage{Input: 120, Output: 30})).To(Succeed())
		err := drain(b, llm.Usage{Input: 1})
		Expect(err).To(MatchError(ContainSubstring("150 of your 100 tokens for this minute")))
	})

	It("are shared by two replicas on one PostgreSQL", func() {
		pg, err := pgtest.New(ctx)
		Expect(err).NotTo(HaveOccurred(), "this spec needs a PostgreSQL server and never skips")
		DeferCleanup(pg.Close)
		var replicas []*company.Budgets
		for range 2 {
			pool, err := postgres.Open(ctx, pg.DSN, zap.NewNop())
			Expect(err).NotTo(HaveOccurred())
			DeferCleanup(pool.Close)
			replicas = append(replicas, budgetsOn(postgres.NewStore(pool), budget.Limits{RequestsPerMinute: 3, TokensPerMinute: 1000}))
		}
		Expect(drain(replicas[0], llm.Usage{Input: 1})).To(Succeed())
		Expect(drain(replicas[1], llm.Usage{Input: 1})).To(Succeed())
		Expect(drain(replicas[0], llm.Usage{Input: 1})).To(Succeed())
		Expect(drain(replicas[1], llm.Usage{Input: 1})).To(MatchError(ContainSubstring("3 of your 3 model requests")))
		clock.Advance(time.Minute)
		Expect(drain(replicas[1], llm.Usage{Input: 1000})).To(Succeed())
		Expect(drain(replicas[0], llm.Usage{Input: 1})).To(MatchError(ContainSubstring("1000 of your 1000 tokens")),
			"the other replica's tokens count")
	})
})
