package ports

import "context"

// UsageCounter keeps per-user usage counters shared by every replica: the
// store adds atomically, so concurrent calls on several replicas never
// lose an addition. Periods are keys such as budget.DayKey(now).
//
// Both methods return ctx.Err() (wrapped) on a cancelled context; a
// cancelled AddUsage has added nothing.
type UsageCounter interface {
	// AddUsage adds tokens and cost (micro-dollars) to userID's counter of
	// every period in periods, all in one transaction.
	AddUsage(ctx context.Context, userID string, periods []string, tokens, costMicros int64) error

	// PeriodUsage returns userID's counters for period; zeros when nothing
	// was counted yet.
	PeriodUsage(ctx context.Context, userID, period string) (tokens, costMicros int64, err error)
}
