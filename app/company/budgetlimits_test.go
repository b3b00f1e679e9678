package company_test

import (
	"context"
	"encoding/json"
	"sync"
	"time"

	. "github.com/onsi/ginkgo/v2"
	. "github.com/onsi/gomega"
	"go.uber.org/zap"

	"keygate/adapters/pgtest"
	"keygate/adapters/postgres"
	"keygate/adapters/relstore"
	"keygate/adapters/secret"
	"keygate/adapters/sqlite"
	"keygate/app/company"
	"keygate/app/run"
	"keygate/app/run/runtest"
	"keygate/domain/access"
	"keygate/domain/budget"
	"keygate/domain/identity"
	"keygate/domain/llm"
	"keygate/ports"
)

// engines opens a fresh store on each engine.
var engines = map[string]func(ctx context.Context) *relstore.Store{
	"SQLite": func(ctx context.Context) *relstore.Store {
		db, err := sqlite.Open(ctx, GinkgoT().TempDir(), zap.NewNop())
		Expect(err).NotTo(HaveOccurred())
		DeferCleanup(db.Close)
		return sqlite.NewStore(db)
	},
	"PostgreSQL": func(ctx context.Context) *relstore.Store {
		pg, err := pgtest.New(ctx)
		Expect(err).NotTo(HaveOccurred(), "this spec needs a PostgreSQL server and never skips")
		DeferCleanup(pg.Close)
		pool, err := postgres.Open(ctx, pg.DSN, zap.NewNop())
		Expect(err).NotTo(HaveOccurred())
		DeferCleanup(pool.Close)
		return postgres.NewStore(pool)
	},
}

var (
	admin  = access.Principal{Identity: identity.Identity{UserID: "root"}, Role: access.Admin}
	member = func(id string) access.Principal {
		return access.Principal{Identity: identity.Identity{UserID: id}, Role: access.Member}
	}
	userScope = func(id string) budget.Scope { return budget.Scope{Kind: budget.ScopeUser, ID: id} }
	teamScope = func(id string) budget.Scope { return budget.Scope{Kind: budget.ScopeTeam, ID: id} }
)

// storeBudgets is one replica's budgets following st's limits, charging
// users to teams.
func storeBudgets(st *relstore.Store, clock ports.Clock, teams map[string]string) *company.Budgets {
	b := company.NewBudgets(st.Budgets(), st.Budgets(), clock, company.BudgetPolicy{}, zap.NewNop())
	b.LimitRatesWith(st.Routing())
	b.FollowLimitsIn(st.BudgetLimits(), company.NewAuditor(st.Audit(), clock))
	b.ChargeTeamsWith(func(_ context.Context, user string) (string, error) { return teams[user], nil })
	Expect(b.Refresh(context.Background())).To(Succeed())
	return b
}

// spend runs one provider call for user reporting u.
func spend(b *company.Budgets, user string, u llm.Usage) error {
	ctx := identity.NewContext(context.Background(), identity.Identity{UserID: user})
	s, err := b.Provider(usageProvider{usage: u}).Stream(ctx, ports.ModelCall{Request: llm.Request{Model: "m"}})
	if err != nil {
		return err
	}
	for s.Next() {
	}
	return s.Close()
}

var _ = Describe("Budget limits kept in the store", func() {
	for name, open := range engines {
		Context("on "+name, func() {
			var (
				ctx   context.Context
				st    *relstore.Store
				clock *runtest.Clock
				b     *company.Budgets
			)
			BeforeEach(func() {
				ctx, clock = context.Background(), runtest.NewClock()
				st = open(ctx)
				b = storeBudgets(st, clock, map[string]string{"ada": "eng", "bob": "eng", "eve": "ops"})
			})

			It("applies what an administrator sets, audited, and refuses a member the change", func() {
				Expect(spend(b, "ada", llm.Usage{Input: 100})).To(Succeed(), "no limits yet")
				_, err := b.SetLimits(ctx, member("ada"), budget.ScopedLimits{Scope: userScope("ada"), Limits: budget.Limits{TokensPerDay: 1e9}})
				Expect(err).To(MatchError(access.ErrDenied))

				_, err = b.SetLimits(ctx, admin, budget.ScopedLimits{Scope: budget.Scope{Kind: budget.ScopeDefault}, Limits: budget.Limits{TokensPerDay: 150}})
				Expect(err).NotTo(HaveOccurred())
				Expect(spend(b, "ada", llm.Usage{Input: 60})).To(Succeed())
				Expect(spend(b, "ada", llm.Usage{Input: 1})).To(MatchError(ContainSubstring("160 of your 150 tokens for today")))

				_, err = b.SetLimits(ctx, admin, budget.ScopedLimits{Scope: userScope("ada"), Limits: budget.Limits{TokensPerDay: 500}})
				Expect(err).NotTo(HaveOccurred())
				Expect(spend(b, "ada", llm.Usage{Input: 1})).To(Succeed(), "a user's own limits replace the default")
				Expect(b.Limits("eve").TokensPerDay).To(BeEquivalentTo(150))

				Expect(b.DeleteLimits(ctx, admin, userScope("ada"))).To(Succeed())
				Expect(b.Limits("ada").TokensPerDay).To(BeEquivalentTo(150), "back to the default")
				Expect(b.DeleteLimits(ctx, admin, userScope("ada"))).To(MatchError(ports.ErrNotFound))
				_, err = b.SetLimits(ctx, admin, budget.ScopedLimits{Scope: userScope("ada"), Limits: budget.Limits{TokensPerDay: -1}})
				Expect(err).To(MatchError(budget.ErrInvalidLimits))

				entries, err := st.Audit().AuditEntries(ctx, ports.AuditQuery{})
				Expect(err).NotTo(HaveOccurred())
				var actions []string
				for _, e := range entries {
					actions = append(actions, e.Action+" "+e.Target)
				}
				Expect(actions).To(Equal([]string{"budget.delete user:ada", "budget.set user:ada", "budget.set default"}))
				Expect(string(entries[1].After)).To(ContainSubstring(`"tokens_per_day":500`))
			})

			It("holds a team to its limits over the sum of its members' usage, and tells them it is the team's", func() {
				_, err := b.SetLimits(ctx, admin, budget.ScopedLimits{Scope: teamScope("eng"), Limits: budget.Limits{TokensPerDay: 100}})
				Expect(err).NotTo(HaveOccurred())
				Expect(spend(b, "ada", llm.Usage{Input: 60})).To(Succeed())
				Expect(spend(b, "bob", llm.Usage{Input: 50})).To(Succeed())
				Expect(spend(b, "bob", llm.Usage{Input: 1})).To(MatchError(ContainSubstring("your team eng used 110 of its 100 tokens for today")))
				Expect(spend(b, "ada", llm.Usage{Input: 1})).To(HaveOccurred())
				Expect(spend(b, "eve", llm.Usage{Input: 1})).To(Succeed(), "another team is apart")

				s, err := b.Standing(ctx, member("bob"), "")
				Expect(err).NotTo(HaveOccurred())
				Expect(s.Team).To(Equal("eng"))
				Expect(s.Usage.TokensToday).To(BeEquivalentTo(50))
				Expect(s.TeamUsage.TokensToday).To(BeEquivalentTo(110))
				Expect(s.TeamLimits.TokensPerDay).To(BeEquivalentTo(100))
			})

			It("bounds a team's concurrent runs across its members", func() {
				_, err := b.SetLimits(ctx, admin, budget.ScopedLimits{Scope: teamScope("eng"), Limits: budget.Limits{ConcurrentRuns: 1}})
				Expect(err).NotTo(HaveOccurred())
				release, err := b.HoldRun(ctx, "ada", "run-a")
				Expect(err).NotTo(HaveOccurred())
				_, err = b.HoldRun(ctx, "bob", "run-b")
				Expect(err).To(MatchError(ContainSubstring("your team eng already has 1 agent runs in progress")))
				release()
				again, err := b.HoldRun(ctx, "bob", "run-b")
				Expect(err).NotTo(HaveOccurred(), "the slot is free once ada's run ended")
				again()
			})

			It("lets a member read their own standing only", func() {
				_, err := b.Standing(ctx, member("ada"), "bob")
				Expect(err).To(MatchError(access.ErrDenied))
				s, err := b.Standing(ctx, admin, "bob")
				Expect(err).NotTo(HaveOccurred())
				Expect(s.From).To(Equal(budget.Scope{Kind: budget.ScopeDefault}))
				_, err = b.ListLimits(ctx, member("ada"))
				Expect(err).To(MatchError(access.ErrDenied))
			})

			It("imports a budgets file only into a store that never held limits", func() {
				file := company.BudgetPolicy{Default: budget.Limits{TokensPerDay: 10}, PerUser: map[string]budget.Limits{"ada": {TokensPerDay: 20}}}
				ok, err := b.ImportIfEmpty(ctx, file)
				Expect(err).NotTo(HaveOccurred())
				Expect(ok).To(BeTrue())
				Expect(b.Limits("ada").TokensPerDay).To(BeEquivalentTo(20))
				Expect(b.Limits("eve").TokensPerDay).To(BeEquivalentTo(10))
				Expect(b.DeleteLimits(ctx, admin, userScope("ada"))).To(Succeed())
				ok, err = b.ImportIfEmpty(ctx, file)
				Expect(err).NotTo(HaveOccurred())
				Expect(ok).To(BeFalse(), "a restart with the file keeps the console's changes")
				Expect(b.Limits("ada").TokensPerDay).To(BeEquivalentTo(10))
			})

			It("warns a Cursor user between 80% and 100% of a budget", func() {
				_, err := b.SetLimits(ctx, admin, budget.ScopedLimits{Scope: userScope("ada"), Limits: budget.Limits{TokensPerDay: 1000}})
				Expect(err).NotTo(HaveOccurred())
				actx := identity.NewContext(ctx, identity.Identity{UserID: "ada"})
				Expect(spend(b, "ada", llm.Usage{Input: 700})).To(Succeed())
				Expect(b.TurnNotice(actx)).To(BeEmpty(), "70% says nothing")
				Expect(spend(b, "ada", llm.Usage{Input: 150})).To(Succeed())
				Expect(b.TurnNotice(actx)).To(Equal("Keygate: 85% of your tokens for today are used (850 of 1000). Requests stop at 100% until 00:00 UTC."))
				Expect(spend(b, "ada", llm.Usage{Input: 150})).To(Succeed())
				Expect(b.TurnNotice(actx)).To(BeEmpty(), "at 100% the call is refused instead")
				Expect(spend(b, "ada", llm.Usage{Input: 1})).To(MatchError(ContainSubstring("1000 of your 1000 tokens")))
			})
		})
	}
})

var _ = Describe("Budget limits on two replicas sharing one PostgreSQL", func() {
	It("apply on the other replica within company.LimitsRefresh of a change", func() {
		ctx, cancel := context.WithCancel(context.Background())
		DeferCleanup(cancel)
		pg, err := pgtest.New(ctx)
		Expect(err).NotTo(HaveOccurred(), "this spec needs a PostgreSQL server and never skips")
		DeferCleanup(pg.Close)
		var replicas []*company.Budgets
		for range 2 {
			pool, err := postgres.Open(ctx, pg.DSN, zap.NewNop())
			Expect(err).NotTo(HaveOccurred())
			DeferCleanup(pool.Close)
			r := storeBudgets(postgres.NewStore(pool), run.SystemClock{}, nil)
			done := make(chan struct{})
			go func() { defer close(done); r.Watch(ctx, company.LimitsRefresh) }()
			DeferCleanup(func() { cancel(); <-done })
			replicas = append(replicas, r)
		}
		Expect(spend(replicas[1], "ada", llm.Usage{Input: 100})).To(Succeed())
		changed := time.Now()
		_, err = replicas[0].SetLimits(ctx, admin, budget.ScopedLimits{Scope: userScope("ada"), Limits: budget.Limits{TokensPerDay: 50}})
		Expect(err).NotTo(HaveOccurred())
		Eventually(func() error { return spend(replicas[1], "ada", llm.Usage{Input: 1}) }).
			WithTimeout(company.LimitsRefresh + time.Second).WithPolling(20 * time.Millisecond).
			Should(MatchError(ContainSubstring("of your 50 tokens for today")))
		took := time.Since(changed)
		Expect(took).To(BeNumerically("<", company.LimitsRefresh+500*time.Millisecond))
		GinkgoWriter.Printf("limit change applied on the other replica after %v\n", took)
	})
})

// posts records webhook deliveries.
type posts struct {
	mu    sync.Mutex
	texts []string
	urls  []string
}

func (p *posts) PostWebhook(_ context.Context, url string, body []byte) error {
	var m map[string]string
	if err := json.Unmarshal(body, &m); err != nil {
		return err
	}
	p.mu.Lock()
	defer p.mu.Unlock()
	p.texts, p.urls = append(p.texts, m["text"]), append(p.urls, url)
	return nil
}

func (p *posts) sent() []string {
	p.mu.Lock()
	defer p.mu.Unlock()
	return append([]string(nil), p.texts...)
}

var _ = Describe("Budget alerts", func() {
	for name, open := range engines {
		It("post once per threshold and period to the sealed webhook, whichever replica counts, on "+name, func() {
			ctx, clock := context.Background(), runtest.NewClock()
			st := open(ctx)
			ring, err := secret.NewRing(secret.NewKey())
			Expect(err).NotTo(HaveOccurred())
			hook := &posts{}
			const url = "https://hooks.example.com/services/T000/B000/secret-token"
			var replicas []*company.Budgets
			var alerts []*company.Alerts
			for range 2 {
				b := storeBudgets(st, clock, map[string]string{"ada": "eng"})
				a := company.NewAlerts(st.BudgetLimits(), st.Stores().Settings, ring, hook, clock, company.NewAuditor(st.Audit(), clock), zap.NewNop())
				b.AlertWith(a)
				replicas, alerts = append(replicas, b), append(alerts, a)
			}
			_, err = alerts[0].SetWebhook(ctx, member("ada"), url)
			Expect(err).To(MatchError(access.ErrDenied))
			cfg, err := alerts[0].SetWebhook(ctx, admin, url)
			Expect(err).NotTo(HaveOccurred())
			Expect(cfg).To(Equal(company.AlertConfig{Configured: true, Host: "hooks.example.com"}))
			raw, err := st.Stores().Settings.Setting(ctx, "budget_alerts")
			Expect(err).NotTo(HaveOccurred())
			Expect(string(raw)).NotTo(ContainSubstring("secret-token"), "the URL is stored sealed")
			_, err = alerts[0].SetWebhook(ctx, admin, "ftp://x")
			Expect(err).To(MatchError(company.ErrInvalidWebhook))

			_, err = replicas[0].SetLimits(ctx, admin, budget.ScopedLimits{Scope: teamScope("eng"), Limits: budget.Limits{TokensPerDay: 1000}})
			Expect(err).NotTo(HaveOccurred())
			Expect(replicas[1].Refresh(ctx)).To(Succeed())
			wait := func() { alerts[0].Wait(); alerts[1].Wait() }

			Expect(spend(replicas[0], "ada", llm.Usage{Input: 700})).To(Succeed())
			wait()
			Expect(hook.sent()).To(BeEmpty())
			Expect(spend(replicas[0], "ada", llm.Usage{Input: 150})).To(Succeed())
			Expect(spend(replicas[1], "ada", llm.Usage{Input: 10})).To(Succeed())
			wait()
			Expect(hook.sent()).To(Equal([]string{"Keygate: Team eng passed 80% of its budget (850 of 1000 tokens today)."}))
			Expect(spend(replicas[1], "ada", llm.Usage{Input: 200})).To(Succeed())
			wait()
			Expect(hook.sent()).To(HaveLen(2))
			Expect(hook.sent()[1]).To(Equal("Keygate: Team eng reached its budget (1060 of 1000 tokens today); further requests are refused until it resets."))
			Expect(hook.urls[0]).To(Equal(url))

			By("sending again in the next period")
			clock.Advance(24 * time.Hour)
			Expect(spend(replicas[0], "ada", llm.Usage{Input: 900})).To(Succeed())
			wait()
			Expect(hook.sent()).To(HaveLen(3))
		})
	}
})
