package budget

import (
	"fmt"
	"time"

	"keygate/domain/llm"
)

// Limits are one user's limits; a zero field means no limit.
type Limits struct {
	TokensPerDay int64
	// CostPerMonth is in micro-dollars (1 USD = 1_000_000).
	CostPerMonth   int64
	ConcurrentRuns int
	// ConcurrentSubagents bounds the subagent runs a user's live runs
	// have in progress at once, counted apart from ConcurrentRuns; zero
	// takes the default (see SubagentLimit).
	ConcurrentSubagents int
	// RequestsPerMinute and TokensPerMinute bound a user's provider calls
	// and tokens within each minute (UTC, MinuteStart).
	RequestsPerMinute int64
	TokensPerMinute   int64
}

// SubagentsPerRun is the default subagent limit per concurrent run:
// Cursor's Agent fans out a few subagents in parallel from one turn.
const SubagentsPerRun = 4

// SubagentLimit is how many subagent runs l allows at once: the explicit
// ConcurrentSubagents, else SubagentsPerRun for each concurrent run when
// ConcurrentRuns is set, else no limit (0).
func (l Limits) SubagentLimit() int {
	if l.ConcurrentSubagents > 0 {
		return l.ConcurrentSubagents
	}
	return SubagentsPerRun * max(l.ConcurrentRuns, 0)
}

// PerMinute reports whether l has a per-minute limit.
func (l Limits) PerMinute() bool { return l.RequestsPerMinute > 0 || l.TokensPerMinute > 0 }

// Usage is what a user consumed in the current windows.
type Usage struct {
	TokensToday int64
	// CostThisMonth is in micro-dollars.
	CostThisMonth int64
}

// Limit names which limit stopped a call.
type Limit string

// The limits.
const (
	LimitTokensPerDay        Limit = "tokens_per_day"
	LimitCostPerMonth        Limit = "cost_per_month"
	LimitConcurrentRuns      Limit = "concurrent_runs"
	LimitConcurrentSubagents Limit = "concurrent_subagents"
	LimitRequestsPerMinute   Limit = "requests_per_minute"
	LimitTokensPerMinute     Limit = "tokens_per_minute"
)

// ExceededError reports a limit that stops a turn. Its message is written
// for the Cursor user who sees it in the chat.
type ExceededError struct {
	Limit Limit
	Used  int64
	Max   int64
	// ResetsAt is when the window restarts; zero for concurrent runs and
	// subagents.
	ResetsAt time.Time
	// Team names the team whose budget is spent; empty for the user's own.
	Team string
}

func (e *ExceededError) Error() string {
	if e.Team != "" {
		return e.teamError()
	}
	switch e.Limit {
	case LimitTokensPerDay:
		return fmt.Sprintf("Keygate budget reached: you used %d of your %d tokens for today. It resets at %s UTC; ask your Keygate administrator for a higher limit.",
			e.Used, e.Max, e.ResetsAt.UTC().Format("15:04"))
	case LimitCostPerMonth:
		return fmt.Sprintf("Keygate budget reached: you spent $%.2f of your $%.2f for this month. It resets on %s; ask your Keygate administrator for a higher limit.",
			float64(e.Used)/1e6, float64(e.Max)/1e6, e.ResetsAt.UTC().Format("2 January"))
	case LimitRequestsPerMinute:
		return fmt.Sprintf("Keygate limit reached: you made %d of your %d model requests for this minute. Try again after %s UTC.",
			e.Used, e.Max, e.ResetsAt.UTC().Format("15:04:05"))
	case LimitTokensPerMinute:
		return fmt.Sprintf("Keygate limit reached: you used %d of your %d tokens for this minute. Try again after %s UTC.",
			e.Used, e.Max, e.ResetsAt.UTC().Format("15:04:05"))
	case LimitConcurrentSubagents:
		return fmt.Sprintf("Keygate limit reached: your agents already have %d subagents running (limit %d). Wait for one to finish, then try again.",
			e.Used, e.Max)
	default:
		return fmt.Sprintf("Keygate limit reached: you already have %d agent runs in progress (limit %d). Wait for one to finish or stop it, then try again.",
			e.Used, e.Max)
	}
}

// teamError words the refusal of a team's budget, which the user shares
// with the team's other members.
func (e *ExceededError) teamError() string {
	switch e.Limit {
	case LimitTokensPerDay:
		return fmt.Sprintf("Keygate budget reached: your team %s used %d of its %d tokens for today. It resets at %s UTC; ask your Keygate administrator for a higher limit.",
			e.Team, e.Used, e.Max, e.ResetsAt.UTC().Format("15:04"))
	case LimitCostPerMonth:
		return fmt.Sprintf("Keygate budget reached: your team %s spent $%.2f of its $%.2f for this month. It resets on %s; ask your Keygate administrator for a higher limit.",
			e.Team, float64(e.Used)/1e6, float64(e.Max)/1e6, e.ResetsAt.UTC().Format("2 January"))
	case LimitRequestsPerMinute:
		return fmt.Sprintf("Keygate limit reached: your team %s made %d of its %d model requests for this minute. Try again after %s UTC.",
			e.Team, e.Used, e.Max, e.ResetsAt.UTC().Format("15:04:05"))
	case LimitTokensPerMinute:
		return fmt.Sprintf("Keygate limit reached: your team %s used %d of its %d tokens for this minute. Try again after %s UTC.",
			e.Team, e.Used, e.Max, e.ResetsAt.UTC().Format("15:04:05"))
	default:
		return fmt.Sprintf("Keygate limit reached: your team %s already has %d agent runs in progress (limit %d). Wait for one to finish, then try again.",
			e.Team, e.Used, e.Max)
	}
}

// Check returns an *ExceededError when u has reached a limit of l at now:
// a call is refused once a counter is at or above its limit, so a call
// that started below may finish above it.
func (l Limits) Check(u Usage, now time.Time) error {
	if l.TokensPerDay > 0 && u.TokensToday >= l.TokensPerDay {
		return &ExceededError{Limit: LimitTokensPerDay, Used: u.TokensToday, Max: l.TokensPerDay, ResetsAt: DayStart(now).AddDate(0, 0, 1)}
	}
	if l.CostPerMonth > 0 && u.CostThisMonth >= l.CostPerMonth {
		return &ExceededError{Limit: LimitCostPerMonth, Used: u.CostThisMonth, Max: l.CostPerMonth, ResetsAt: MonthStart(now).AddDate(0, 1, 0)}
	}
	return nil
}

// CheckMinute returns an *ExceededError for a minute window that holds
// requests and tokens at now, or nil when l leaves room for one more call.
func (l Limits) CheckMinute(requests, tokens int64, now time.Time) error {
	next := MinuteStart(now).Add(time.Minute)
	if l.RequestsPerMinute > 0 && requests >= l.RequestsPerMinute {
		return &ExceededError{Limit: LimitRequestsPerMinute, Used: requests, Max: l.RequestsPerMinute, ResetsAt: next}
	}
	if l.TokensPerMinute > 0 && tokens >= l.TokensPerMinute {
		return &ExceededError{Limit: LimitTokensPerMinute, Used: tokens, Max: l.TokensPerMinute, ResetsAt: next}
	}
	return nil
}

// MinuteStart is the UTC start of now's minute, the window of per-minute
// limits.
func MinuteStart(now time.Time) time.Time { return now.UTC().Truncate(time.Minute) }

// UserScope names a user's per-minute counters.
func UserScope(userID string) string { return "user:" + userID }

// DayStart and MonthStart are the UTC starts of now's windows.
func DayStart(now time.Time) time.Time {
	y, m, d := now.UTC().Date()
	return time.Date(y, m, d, 0, 0, 0, 0, time.UTC)
}

// MonthStart is the UTC start of now's month.
func MonthStart(now time.Time) time.Time {
	y, m, _ := now.UTC().Date()
	return time.Date(y, m, 1, 0, 0, 0, 0, time.UTC)
}

// DayKey and MonthKey name the counters of now's windows.
func DayKey(now time.Time) string { return "d" + now.UTC().Format("2006-01-02") }

// MonthKey names the counter of now's month.
func MonthKey(now time.Time) string { return "m" + now.UTC().Format("2006-01") }

// Price is a model's price in micro-dollars per million tokens.
type Price struct {
	Input, Output, CacheRead, CacheWrite int64
}

// Tokens counts u for the daily token limit: every input and output token,
// cached or not.
func Tokens(u llm.Usage) int64 { return u.Input + u.CacheRead + u.CacheWrite + u.Output }

// Cost prices u in micro-dollars, rounding up so many small calls cannot
// stay free.
func (p Price) Cost(u llm.Usage) int64 {
	total := u.Input*p.Input + u.Output*p.Output + u.CacheRead*p.CacheRead + u.CacheWrite*p.CacheWrite
	return (total + 999_999) / 1_000_000
}
