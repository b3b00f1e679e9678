package company

import (
	"context"
	"fmt"
	"sync/atomic"
	"time"

	"go.uber.org/zap"

	"keygate/domain/budget"
	"keygate/domain/identity"
	"keygate/domain/llm"
	"keygate/ports"
)

// BudgetPolicy is the configured limits and prices.
type BudgetPolicy struct {
	// Default applies to every user without an entry in PerUser.
	Default budget.Limits
	// PerUser overrides Default by user id.
	PerUser map[string]budget.Limits
	// Prices by upstream model id; an unpriced model costs nothing.
	Prices map[string]budget.Price
	// PriceOf, when set, replaces Prices, so prices can follow the
	// console's price settings (app/control: USD per million tokens, so
	// multiply by 1e6 for budget.Price).
	PriceOf func(modelID string) budget.Price
	// LeaseTTL is how long a run lease lasts without renewal (default two
	// minutes); a replica that dies frees its users' run slots after it.
	LeaseTTL time.Duration
}

// Budgets enforces per-user limits before provider calls and counts usage
// after them, with counters every replica shares.
type Budgets struct {
	counter ports.UsageCounter
	leases  ports.RunLeases
	windows ports.RateWindows
	clock   ports.Clock
	policy  BudgetPolicy
	log     *zap.Logger
	// limits is the replica's copy of the limits (the policy's, else the
	// store's as of its last Refresh), swapped whole.
	limits atomic.Pointer[limitSet]
	store  ports.BudgetLimitStore
	team   ChargedTeam
	audit  *Auditor
	alerts *Alerts
}

// LimitRatesWith counts each user's requests and tokens per minute in
// windows, which every replica shares, for the policy's per-minute limits;
// without it those limits are not enforced.
func (b *Budgets) LimitRatesWith(windows ports.RateWindows) { b.windows = windows }

// Admit counts a provider call against userID's per-minute limits, or
// returns a *budget.ExceededError, counting nothing, when one of them has
// no room left this minute.
func (b *Budgets) Admit(ctx context.Context, userID string) error {
	team, err := b.teamOf(ctx, userID)
	if err != nil {
		return err
	}
	return b.admit(ctx, userID, team)
}

// admit is Admit for userID charged to team: the user's window, then the
// team's. A request the team refuses stays counted in the user's minute.
func (b *Budgets) admit(ctx context.Context, userID, team string) error {
	if err := b.admitWindow(ctx, budget.UserScope(userID), b.Limits(userID)); err != nil {
		return err
	}
	if tl, ok := b.limits.Load().teams[team]; ok && team != "" {
		if err := b.admitWindow(ctx, budget.TeamScope(team), tl); err != nil {
			return teamExceeded(team, err)
		}
	}
	return nil
}

func (b *Budgets) admitWindow(ctx context.Context, scope string, l budget.Limits) error {
	if !l.PerMinute() || b.windows == nil {
		return nil
	}
	now := b.clock.Now()
	ok, requests, tokens, err := b.windows.Admit(ctx, scope, budget.MinuteStart(now),
		l.RequestsPerMinute, l.TokensPerMinute)
	if err != nil {
		return fmt.Errorf("check per-minute limits: %w", err)
	}
	if ok {
		return nil
	}
	if err := l.CheckMinute(requests, tokens, now); err != nil {
		return err
	}
	// Refused by the store, though the counts read after leave room: one
	// of the limits was reached in between.
	return &budget.ExceededError{Limit: budget.LimitRequestsPerMinute, Used: requests, Max: l.RequestsPerMinute,
		ResetsAt: budget.MinuteStart(now).Add(time.Minute)}
}

// NewBudgets returns the budget use case.
func NewBudgets(counter ports.UsageCounter, leases ports.RunLeases, clock ports.Clock, policy BudgetPolicy, logger *zap.Logger) *Budgets {
	if policy.LeaseTTL <= 0 {
		policy.LeaseTTL = 2 * time.Minute
	}
	b := &Budgets{counter: counter, leases: leases, clock: clock, policy: policy, log: logger.Named("budget")}
	b.limits.Store(policySet(policy))
	return b
}

// Limits returns userID's own limits: theirs, else the default.
func (b *Budgets) Limits(userID string) budget.Limits {
	l, _ := b.limits.Load().user(userID)
	return l
}

// Check returns a *budget.ExceededError when userID may not make another
// provider call now.
func (b *Budgets) Check(ctx context.Context, userID string) error {
	team, err := b.teamOf(ctx, userID)
	if err != nil {
		return err
	}
	return b.check(ctx, userID, team)
}

// check is Check for userID charged to team ("" for none): the user's own
// limits against their usage, then the team's against its members'.
func (b *Budgets) check(ctx context.Context, userID, team string) error {
	now := b.clock.Now()
	if err := b.checkCounter(ctx, userID, b.Limits(userID), now); err != nil {
		return err
	}
	if tl, ok := b.limits.Load().teams[team]; ok && team != "" {
		if err := b.checkCounter(ctx, budget.TeamScope(team), tl, now); err != nil {
			return teamExceeded(team, err)
		}
	}
	return nil
}

func (b *Budgets) checkCounter(ctx context.Context, counter string, l budget.Limits, now time.Time) error {
	if l.TokensPerDay <= 0 && l.CostPerMonth <= 0 {
		return nil
	}
	u, err := b.usage(ctx, counter, now)
	if err != nil {
		return fmt.Errorf("check budget: %w", err)
	}
	return l.Check(u, now)
}

// usage reads counter's day tokens and month cost at now.
func (b *Budgets) usage(ctx context.Context, counter string, now time.Time) (budget.Usage, error) {
	tokens, _, err := b.counter.PeriodUsage(ctx, counter, budget.DayKey(now))
	if err != nil {
		return budget.Usage{}, err
	}
	_, cost, err := b.counter.PeriodUsage(ctx, counter, budget.MonthKey(now))
	if err != nil {
		return budget.Usage{}, err
	}
	return budget.Usage{TokensToday: tokens, CostThisMonth: cost}, nil
}

// Record counts a finished call's usage against userID's day and month.
func (b *Budgets) Record(ctx context.Context, userID, model string, u llm.Usage) error {
	team, err := b.teamOf(ctx, userID)
	if err != nil {
		return err
	}
	return b.record(ctx, userID, team, model, u)
}

// record is Record for userID charged to team: the team's counters add
// the same, so a team's usage is the sum of its members' charged usage.
func (b *Budgets) record(ctx context.Context, userID, team, model string, u llm.Usage) error {
	price := b.policy.Prices[model]
	if b.policy.PriceOf != nil {
		price = b.policy.PriceOf(model)
	}
	tokens, cost := budget.Tokens(u), price.Cost(u)
	if tokens == 0 && cost == 0 {
		return nil
	}
	now := b.clock.Now()
	set := b.limits.Load()
	if b.windows != nil && b.Limits(userID).TokensPerMinute > 0 {
		if err := b.windows.AddTokens(ctx, budget.UserScope(userID), budget.MinuteStart(now), tokens); err != nil {
			return err
		}
	}
	periods := []string{budget.DayKey(now), budget.MonthKey(now)}
	if err := b.counter.AddUsage(ctx, userID, periods, tokens, cost); err != nil {
		return err
	}
	b.alerts.check(ctx, b, budget.Scope{Kind: budget.ScopeUser, ID: userID}, userID, b.Limits(userID), now)
	if team == "" {
		return nil
	}
	tl := set.teams[team]
	if b.windows != nil && tl.TokensPerMinute > 0 {
		if err := b.windows.AddTokens(ctx, budget.TeamScope(team), budget.MinuteStart(now), tokens); err != nil {
			return err
		}
	}
	if err := b.counter.AddUsage(ctx, budget.TeamScope(team), periods, tokens, cost); err != nil {
		return err
	}
	b.alerts.check(ctx, b, budget.Scope{Kind: budget.ScopeTeam, ID: team}, budget.TeamScope(team), tl, now)
	return nil
}

// StartRun takes one of userID's concurrent-run slots for runID, or
// returns a *budget.ExceededError. The caller renews it with StartRun
// again within LeaseTTL while the run lasts, and ends it with EndRun.
func (b *Budgets) StartRun(ctx context.Context, userID, runID string) error {
	l := b.Limits(userID)
	if l.ConcurrentRuns <= 0 {
		return nil
	}
	return b.acquire(ctx, slot{scope: userID, max: l.ConcurrentRuns, limit: budget.LimitConcurrentRuns}, runID)
}

// EndRun frees runID's slot.
func (b *Budgets) EndRun(ctx context.Context, runID string) error {
	return b.leases.ReleaseRun(ctx, runID)
}

// Provider wraps next: a call is refused with the *budget.ExceededError
// (not a provider error, so the run engine does not retry it and shows
// its message) when the caller's budget is spent, and the usage a stream
// reports is counted when it ends. The caller is identity.FromContext; a
// call without one is refused, so a wiring mistake cannot bypass budgets.
func (b *Budgets) Provider(next ports.ModelProvider) ports.ModelProvider {
	return budgetProvider{b: b, next: next}
}

type budgetProvider struct {
	b    *Budgets
	next ports.ModelProvider
}

// ErrNoCaller means a provider call whose context names no user.
var ErrNoCaller = fmt.Errorf("provider call without a caller identity: %w", identity.ErrNoUser)

func (p budgetProvider) Stream(ctx context.Context, call ports.ModelCall) (ports.ModelStream, error) {
	id, ok := identity.FromContext(ctx)
	if !ok || id.Validate() != nil {
		return nil, ErrNoCaller
	}
	team, err := p.b.teamOf(ctx, id.UserID)
	if err != nil {
		return nil, err
	}
	if err := p.b.check(ctx, id.UserID, team); err != nil {
		return nil, err
	}
	if err := p.b.admit(ctx, id.UserID, team); err != nil {
		return nil, err
	}
	s, err := p.next.Stream(ctx, call)
	if err != nil {
		return nil, err
	}
	return &budgetStream{ModelStream: s, b: p.b, user: id.UserID, team: team, model: call.Request.Model}, nil
}

// budgetStream remembers the last usage event and records it once.
type budgetStream struct {
	ports.ModelStream
	b          *Budgets
	user, team string
	model      string
	usage      *llm.Usage
	recorded   bool
}

func (s *budgetStream) Next() bool {
	if !s.ModelStream.Next() {
		s.record()
		return false
	}
	if ev := s.ModelStream.Event(); ev.Kind == llm.EventUsage && ev.Usage != nil {
		u := *ev.Usage
		s.usage = &u
	}
	return true
}

func (s *budgetStream) Close() error {
	s.record()
	return s.ModelStream.Close()
}

func (s *budgetStream) record() {
	if s.recorded || s.usage == nil {
		return
	}
	s.recorded = true
	// The call's context may be cancelled by now; the usage still counts.
	if err := s.b.record(context.Background(), s.user, s.team, s.model, *s.usage); err != nil {
		s.b.log.Warn("usage not counted", zap.String("user_id", s.user), zap.Error(err))
	}
}
