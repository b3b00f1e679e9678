package sqlite

import (
	"context"
	"errors"
	"time"

	"keygate/gen/sqlc/sqlitedb"
	"keygate/ports"
)

// AdmitRate reads and then bumps the window: SQLite's single writer makes
// the two one atomic step.
func (t tx) AdmitRate(ctx context.Context, scope string, window time.Time, maxRequests, maxTokens int64) (bool, int64, int64, error) {
	row, err := t.q.GetRateWindow(ctx, sqlitedb.GetRateWindowParams{Scope: scope, WindowStart: ms(window)})
	if err = interpretError(ctx, err); err != nil && !errors.Is(err, ports.ErrNotFound) {
		return false, 0, 0, err
	}
	if (maxRequests > 0 && row.Requests >= maxRequests) || (maxTokens > 0 && row.Tokens >= maxTokens) {
		return false, row.Requests, row.Tokens, nil
	}
	err = t.q.BumpRateWindow(ctx, sqlitedb.BumpRateWindowParams{Scope: scope, WindowStart: ms(window), Requests: 1})
	return true, row.Requests, row.Tokens, interpretError(ctx, err)
}

func (t tx) AddRateTokens(ctx context.Context, scope string, window time.Time, tokens int64) error {
	return interpretError(ctx, t.q.BumpRateWindow(ctx, sqlitedb.BumpRateWindowParams{Scope: scope, WindowStart: ms(window), Tokens: tokens}))
}

func (t tx) DeleteOldRateWindows(ctx context.Context, scope string, before time.Time) error {
	return interpretError(ctx, t.q.DeleteOldRateWindows(ctx, sqlitedb.DeleteOldRateWindowsParams{Scope: scope, WindowStart: ms(before)}))
}
