package budget

import (
	"errors"
	"fmt"
	"time"
	"unicode/utf8"
)

// ScopeKind says whom a set of limits applies to.
type ScopeKind string

// The scope kinds: the default applies to every user without limits of
// their own; a team's limits bound the summed usage of the users charged
// to it.
const (
	ScopeDefault ScopeKind = "default"
	ScopeUser    ScopeKind = "user"
	ScopeTeam    ScopeKind = "team"
)

// Scope names one set of limits: the default (ID empty), a user by id, a
// team by its identity-provider group.
type Scope struct {
	Kind ScopeKind
	ID   string
}

// MaxScopeID bounds a user id or team name in bytes.
const MaxScopeID = 320

// ErrInvalidScope means a scope that names nobody.
var ErrInvalidScope = errors.New("invalid budget scope")

// Validate reports a scope of an unknown kind, a default with an id, or a
// user or team without one (or with one too long or not UTF-8).
func (s Scope) Validate() error {
	switch s.Kind {
	case ScopeDefault:
		if s.ID != "" {
			return fmt.Errorf("%w: the default names nobody", ErrInvalidScope)
		}
		return nil
	case ScopeUser, ScopeTeam:
		if s.ID == "" || len(s.ID) > MaxScopeID || !utf8.ValidString(s.ID) {
			return fmt.Errorf("%w: a %s needs an id of 1 to %d bytes", ErrInvalidScope, s.Kind, MaxScopeID)
		}
		return nil
	}
	return fmt.Errorf("%w: kind %q", ErrInvalidScope, s.Kind)
}

func (s Scope) String() string {
	if s.Kind == ScopeDefault {
		return string(ScopeDefault)
	}
	return string(s.Kind) + ":" + s.ID
}

// ScopedLimits are the limits stored for one scope.
type ScopedLimits struct {
	Scope     Scope
	Limits    Limits
	UpdatedAt time.Time
}

// ErrInvalidLimits means a negative limit.
var ErrInvalidLimits = errors.New("invalid budget limits")

// Validate refuses negative limits: zero is the only way to say "none", so
// a typo cannot lift a limit silently.
func (l Limits) Validate() error {
	if l.TokensPerDay < 0 || l.CostPerMonth < 0 || l.ConcurrentRuns < 0 || l.ConcurrentSubagents < 0 ||
		l.RequestsPerMinute < 0 || l.TokensPerMinute < 0 {
		return fmt.Errorf("%w: a limit is negative; use 0 for no limit", ErrInvalidLimits)
	}
	return nil
}

// TeamScope names a team's per-minute counters and concurrent-run leases;
// the unit separators keep it from being any user's id that sign-in
// reports (a header value cannot carry them).
func TeamScope(team string) string { return "\x1fteam\x1f" + team }

// WarnPercent is the share of a limit past which the user is warned.
const WarnPercent = 80

// Share is how much of l's daily tokens and monthly cost u used, in
// percent of the nearer limit (0 without either limit), and which limit
// that is.
func (l Limits) Share(u Usage) (percent int64, limit Limit) {
	if l.TokensPerDay > 0 {
		percent, limit = u.TokensToday*100/l.TokensPerDay, LimitTokensPerDay
	}
	if l.CostPerMonth > 0 {
		if p := u.CostThisMonth * 100 / l.CostPerMonth; p > percent || limit == "" {
			percent, limit = p, LimitCostPerMonth
		}
	}
	return percent, limit
}
