package company

import (
	"context"
	"errors"
	"fmt"
	"time"

	"go.uber.org/zap"

	"keygate/domain/access"
	"keygate/domain/budget"
	"keygate/domain/identity"
	"keygate/ports"
)

// ChargedTeam returns the team userID's usage is charged to ("" for none).
// The composition root answers it from the groups the identity provider
// asserted (MembershipStore: the first recorded group).
type ChargedTeam func(ctx context.Context, userID string) (string, error)

// LimitsRefresh is how often a replica reads the limits' revision (see
// Watch): a change made on any replica applies on every other within this
// interval plus one store read.
const LimitsRefresh = time.Second

// limitSet is one replica's copy of the limits.
type limitSet struct {
	rev   int64
	def   budget.Limits
	users map[string]budget.Limits
	teams map[string]budget.Limits
}

// user returns userID's limits and the scope they come from.
func (s *limitSet) user(userID string) (budget.Limits, budget.Scope) {
	if l, ok := s.users[userID]; ok {
		return l, budget.Scope{Kind: budget.ScopeUser, ID: userID}
	}
	return s.def, budget.Scope{Kind: budget.ScopeDefault}
}

func policySet(p BudgetPolicy) *limitSet {
	s := &limitSet{def: p.Default, users: map[string]budget.Limits{}, teams: map[string]budget.Limits{}}
	for u, l := range p.PerUser {
		s.users[u] = l
	}
	return s
}

func storedSet(rows []budget.ScopedLimits, rev int64) *limitSet {
	s := &limitSet{rev: rev, users: map[string]budget.Limits{}, teams: map[string]budget.Limits{}}
	for _, r := range rows {
		switch r.Scope.Kind {
		case budget.ScopeDefault:
			s.def = r.Limits
		case budget.ScopeUser:
			s.users[r.Scope.ID] = r.Limits
		case budget.ScopeTeam:
			s.teams[r.Scope.ID] = r.Limits
		}
	}
	return s
}

// FollowLimitsIn makes store the source of the limits (the policy's
// Default and PerUser then only matter to ImportIfEmpty), edited with
// SetLimits and DeleteLimits, audited by auditor. Call Refresh before
// serving and run Watch.
func (b *Budgets) FollowLimitsIn(store ports.BudgetLimitStore, auditor *Auditor) {
	b.store, b.audit = store, auditor
	b.limits.Store(&limitSet{rev: -1, users: map[string]budget.Limits{}, teams: map[string]budget.Limits{}})
}

// ChargeTeamsWith counts each user's usage for the team team names too,
// and holds them to that team's limits.
func (b *Budgets) ChargeTeamsWith(team ChargedTeam) { b.team = team }

// teamOf is the team userID is charged to, "" without teams.
func (b *Budgets) teamOf(ctx context.Context, userID string) (string, error) {
	if b.team == nil {
		return "", nil
	}
	t, err := b.team(ctx, userID)
	if err != nil {
		return "", fmt.Errorf("find the team of %s: %w", userID, err)
	}
	return t, nil
}

func teamExceeded(team string, err error) error {
	var ex *budget.ExceededError
	if errors.As(err, &ex) {
		c := *ex
		c.Team = team
		return &c
	}
	return err
}

// Refresh reloads the limits from the store when its revision moved since
// the last load: one single-row read otherwise.
func (b *Budgets) Refresh(ctx context.Context) error {
	if b.store == nil {
		return nil
	}
	rev, err := b.store.BudgetRevision(ctx)
	if err != nil {
		return fmt.Errorf("refresh budget limits: %w", err)
	}
	if rev == b.limits.Load().rev {
		return nil
	}
	rows, rev, err := b.store.BudgetLimits(ctx)
	if err != nil {
		return fmt.Errorf("refresh budget limits: %w", err)
	}
	b.limits.Store(storedSet(rows, rev))
	return nil
}

// Watch refreshes the limits every interval until ctx ends; a failed
// refresh keeps the limits last read and is logged.
func (b *Budgets) Watch(ctx context.Context, interval time.Duration) {
	for {
		t := b.clock.NewTimer(interval)
		select {
		case <-ctx.Done():
			t.Stop()
			return
		case <-t.C():
		}
		if err := b.Refresh(ctx); err != nil && ctx.Err() == nil {
			b.log.Warn("budget limits not refreshed; the last ones read apply", zap.Error(err))
		}
	}
}

// ErrNoLimitStore means limits are edited without a store to keep them.
var ErrNoLimitStore = errors.New("budget limits are not kept in the database here")

// ListLimits returns every stored scope's limits to an administrator.
func (b *Budgets) ListLimits(ctx context.Context, caller access.Principal) ([]budget.ScopedLimits, error) {
	if err := caller.RequireAdmin(); err != nil {
		return nil, fmt.Errorf("list budget limits: %w", err)
	}
	if b.store == nil {
		return nil, ErrNoLimitStore
	}
	rows, _, err := b.store.BudgetLimits(ctx)
	return rows, err
}

// SetLimits creates or replaces scope's limits (administrators only),
// audited as budget.set with the limits before and after, and applies them
// on this replica at once (the others within LimitsRefresh).
func (b *Budgets) SetLimits(ctx context.Context, caller access.Principal, l budget.ScopedLimits) (budget.ScopedLimits, error) {
	if err := caller.RequireAdmin(); err != nil {
		return budget.ScopedLimits{}, fmt.Errorf("set budget limits: %w", err)
	}
	if b.store == nil {
		return budget.ScopedLimits{}, ErrNoLimitStore
	}
	if err := l.Scope.Validate(); err != nil {
		return budget.ScopedLimits{}, err
	}
	if err := l.Limits.Validate(); err != nil {
		return budget.ScopedLimits{}, err
	}
	before := b.stored(l.Scope)
	now := b.clock.Now()
	if _, err := b.store.PutBudgetLimits(ctx, l, now); err != nil {
		return budget.ScopedLimits{}, err
	}
	l.UpdatedAt = now.UTC().Truncate(time.Millisecond)
	b.changed(ctx, caller, "budget.set", l.Scope, before, limitsView(l.Limits))
	return l, nil
}

// DeleteLimits removes scope's limits (administrators only; the default
// then is no limit, a user or team falls back to the default or none),
// audited as budget.delete. ports.ErrNotFound when scope has none.
func (b *Budgets) DeleteLimits(ctx context.Context, caller access.Principal, scope budget.Scope) error {
	if err := caller.RequireAdmin(); err != nil {
		return fmt.Errorf("delete budget limits: %w", err)
	}
	if b.store == nil {
		return ErrNoLimitStore
	}
	before := b.stored(scope)
	if _, err := b.store.DeleteBudgetLimits(ctx, scope); err != nil {
		return err
	}
	b.changed(ctx, caller, "budget.delete", scope, before, nil)
	return nil
}

// stored is scope's limits as this replica knows them, for the audit's
// before state (nil: none).
func (b *Budgets) stored(scope budget.Scope) any {
	set := b.limits.Load()
	var (
		l  budget.Limits
		ok bool
	)
	switch scope.Kind {
	case budget.ScopeDefault:
		l, ok = set.def, set.def != (budget.Limits{})
	case budget.ScopeUser:
		l, ok = set.users[scope.ID]
	case budget.ScopeTeam:
		l, ok = set.teams[scope.ID]
	}
	if !ok {
		return nil
	}
	return limitsView(l)
}

// changed audits a change and applies it here at once; the change is made
// either way, so a failure to audit or refresh is logged.
func (b *Budgets) changed(ctx context.Context, caller access.Principal, action string, scope budget.Scope, before, after any) {
	if b.audit != nil {
		if err := b.audit.Record(ctx, caller, action, scope.String(), before, after); err != nil {
			b.log.Error("budget change not audited", zap.String("scope", scope.String()), zap.Error(err))
		}
	}
	if err := b.Refresh(ctx); err != nil {
		b.log.Warn("budget limits not refreshed after a change", zap.Error(err))
	}
}

// limitView is how limits are audited, in the control API's names.
type limitView struct {
	TokensPerDay        int64 `json:"tokens_per_day"`
	CostPerMonthMicros  int64 `json:"cost_per_month_micros"`
	ConcurrentRuns      int   `json:"concurrent_runs"`
	ConcurrentSubagents int   `json:"concurrent_subagents"`
	RequestsPerMinute   int64 `json:"requests_per_minute"`
	TokensPerMinute     int64 `json:"tokens_per_minute"`
}

func limitsView(l budget.Limits) limitView {
	return limitView{TokensPerDay: l.TokensPerDay, CostPerMonthMicros: l.CostPerMonth, ConcurrentRuns: l.ConcurrentRuns,
		ConcurrentSubagents: l.ConcurrentSubagents, RequestsPerMinute: l.RequestsPerMinute, TokensPerMinute: l.TokensPerMinute}
}

// ImportIfEmpty stores the policy's default and per-user limits when the
// store never held any (revision 0), audited as budget.import by System: a
// budgets file given at start seeds the database once, and from then on
// the console and the control API own the limits. It reports whether it
// imported.
func (b *Budgets) ImportIfEmpty(ctx context.Context, p BudgetPolicy) (bool, error) {
	if b.store == nil {
		return false, nil
	}
	rev, err := b.store.BudgetRevision(ctx)
	if err != nil {
		return false, fmt.Errorf("import budget policy: %w", err)
	}
	if rev != 0 {
		return false, nil
	}
	if _, err := b.Import(ctx, p); err != nil {
		return false, err
	}
	return true, nil
}

// Import stores the policy's default and per-user limits, replacing those
// scopes' limits and leaving the others (`keygate budgets import`, run by
// someone with the database's credentials), audited as budget.import by
// System. It returns how many scopes it stored.
func (b *Budgets) Import(ctx context.Context, p BudgetPolicy) (int, error) {
	if b.store == nil {
		return 0, ErrNoLimitStore
	}
	now := b.clock.Now()
	rows := []budget.ScopedLimits{{Scope: budget.Scope{Kind: budget.ScopeDefault}, Limits: p.Default}}
	for u, l := range p.PerUser {
		rows = append(rows, budget.ScopedLimits{Scope: budget.Scope{Kind: budget.ScopeUser, ID: u}, Limits: l})
	}
	for _, r := range rows {
		if _, err := b.store.PutBudgetLimits(ctx, r, now); err != nil {
			return 0, fmt.Errorf("import budget policy: %w", err)
		}
	}
	if b.audit != nil {
		if err := b.audit.Record(ctx, System, "budget.import", "budgets file", nil, map[string]int{"scopes": len(rows)}); err != nil {
			b.log.Error("budget import not audited", zap.Error(err))
		}
	}
	return len(rows), b.Refresh(ctx)
}

// Standing is a user's effective limits and usage now.
type Standing struct {
	UserID string
	// Limits are the user's own; From says whose they are (the user's, or
	// the default).
	Limits budget.Limits
	From   budget.Scope
	Usage  budget.Usage
	// Team is the team the user is charged to ("" for none); TeamLimits
	// its limits (zero: none), TeamUsage its members' summed usage.
	Team       string
	TeamLimits budget.Limits
	TeamUsage  budget.Usage
}

// Standing returns userID's limits and usage to that user or an
// administrator; access.ErrDenied to anyone else, so a member reads only
// their own.
func (b *Budgets) Standing(ctx context.Context, caller access.Principal, userID string) (Standing, error) {
	if userID == "" {
		userID = caller.Identity.UserID
	}
	if !caller.CanSee(userID) {
		return Standing{}, fmt.Errorf("read the budget of %s: %w", userID, access.ErrDenied)
	}
	team, err := b.teamOf(ctx, userID)
	if err != nil {
		return Standing{}, err
	}
	now := b.clock.Now()
	st := Standing{UserID: userID, Team: team}
	st.Limits, st.From = b.limits.Load().user(userID)
	if st.Usage, err = b.usage(ctx, userID, now); err != nil {
		return Standing{}, fmt.Errorf("read the usage of %s: %w", userID, err)
	}
	if team != "" {
		st.TeamLimits = b.limits.Load().teams[team]
		if st.TeamUsage, err = b.usage(ctx, budget.TeamScope(team), now); err != nil {
			return Standing{}, fmt.Errorf("read the usage of team %s: %w", team, err)
		}
	}
	return st, nil
}

// TurnNotice is the line shown to the caller on ctx at the start of a
// Cursor turn once they, or their team, used WarnPercent of a daily or
// monthly budget and not all of it (at 100% the turn is refused with the
// limit's message instead); "" otherwise. A failure to read the usage
// shows nothing: the warning is a courtesy, the refusal is the rule.
func (b *Budgets) TurnNotice(ctx context.Context) string {
	who, ok := identity.FromContext(ctx)
	if !ok {
		return ""
	}
	team, err := b.teamOf(ctx, who.UserID)
	if err != nil {
		return ""
	}
	now := b.clock.Now()
	if line := b.notice(ctx, who.UserID, b.Limits(who.UserID), now, "your"); line != "" {
		return line
	}
	if tl, ok := b.limits.Load().teams[team]; ok && team != "" {
		return b.notice(ctx, budget.TeamScope(team), tl, now, "your team "+team+"'s")
	}
	return ""
}

func (b *Budgets) notice(ctx context.Context, counter string, l budget.Limits, now time.Time, whose string) string {
	if l.TokensPerDay <= 0 && l.CostPerMonth <= 0 {
		return ""
	}
	u, err := b.usage(ctx, counter, now)
	if err != nil {
		return ""
	}
	pct, limit := l.Share(u)
	if pct < budget.WarnPercent || pct >= 100 {
		return ""
	}
	if limit == budget.LimitCostPerMonth {
		return fmt.Sprintf("Keygate: %d%% of %s budget for this month is spent ($%.2f of $%.2f). Requests stop at 100%% until %s.",
			pct, whose, float64(u.CostThisMonth)/1e6, float64(l.CostPerMonth)/1e6, budget.MonthStart(now).AddDate(0, 1, 0).Format("2 January"))
	}
	return fmt.Sprintf("Keygate: %d%% of %s tokens for today are used (%d of %d). Requests stop at 100%% until %s UTC.",
		pct, whose, u.TokensToday, l.TokensPerDay, budget.DayStart(now).AddDate(0, 0, 1).Format("15:04"))
}
