package postgres

import (
	"context"
	"errors"
	"time"

	"keygate/gen/sqlc/pgdb"
	"keygate/ports"
)

// AdmitRate bumps the window in one statement whose conflict clause checks
// the limits, so concurrent replicas cannot both take the last request;
// when no row comes back the limits refused it, and the window is read
// for the counts.
func (t tx) AdmitRate(ctx context.Context, scope string, window time.Time, maxRequests, maxTokens int64) (bool, int64, int64, error) {
	row, err := t.q.AdmitRateWindow(ctx, pgdb.AdmitRateWindowParams{Scope: scope, WindowStart: window,
		MaxRequests: maxRequests, MaxTokens: maxTokens})
	err = interpretError(ctx, err)
	if err == nil {
		return true, row.Requests - 1, row.Tokens, nil
	}
	if !errors.Is(err, ports.ErrNotFound) {
		return false, 0, 0, err
	}
	cur, err := t.q.GetRateWindow(ctx, pgdb.GetRateWindowParams{Scope: scope, WindowStart: window})
	return false, cur.Requests, cur.Tokens, interpretError(ctx, err)
}

func (t tx) AddRateTokens(ctx context.Context, scope string, window time.Time, tokens int64) error {
	return interpretError(ctx, t.q.AddRateTokens(ctx, pgdb.AddRateTokensParams{Scope: scope, WindowStart: window, Tokens: tokens}))
}

func (t tx) DeleteOldRateWindows(ctx context.Context, scope string, before time.Time) error {
	return interpretError(ctx, t.q.DeleteOldRateWindows(ctx, pgdb.DeleteOldRateWindowsParams{Scope: scope, WindowStart: before}))
}
