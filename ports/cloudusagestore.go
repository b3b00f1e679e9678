package ports

import (
	"context"

	"keygate/domain/cursorcloud"
)

// CloudUsageQuery selects ledger rows: one user's (UserID) or everyone's
// (empty), from day Since to day Until inclusive ("2006-01-02"; empty
// leaves that end open), at most Limit rows (all when <= 0).
type CloudUsageQuery struct {
	UserID       string
	Since, Until string
	Limit        int
}

// CloudUsageStore keeps the ledger of what went to Cursor's own service:
// daily aggregates per user, route and decision, shared by every replica.
//
// AddCloudUsage adds each row's counts (requests, bytes up and down) to the
// row of the same day, user, route and decision, creating it when absent,
// all in one transaction; the store adds atomically, so concurrent calls
// on several replicas never lose an addition. ListCloudUsage returns the
// rows the query selects, newest day first, then by requests descending,
// then by service and method. Both return ctx.Err() (wrapped) on a
// cancelled context; a cancelled AddCloudUsage has added nothing.
type CloudUsageStore interface {
	AddCloudUsage(ctx context.Context, rows []cursorcloud.DayUsage) error
	ListCloudUsage(ctx context.Context, q CloudUsageQuery) ([]cursorcloud.DayUsage, error)
}
