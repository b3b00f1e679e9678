package sqlite

import (
	"context"
	"time"

	"keygate/gen/sqlc/sqlitedb"
)

func (t tx) AddUsage(ctx context.Context, userID, period string, tokens, costMicros int64) error {
	err := t.q.AddUsage(ctx, sqlitedb.AddUsageParams{UserID: userID, Period: period, Tokens: tokens, CostMicros: costMicros})
	return interpretError(ctx, err)
}

func (t tx) GetUsage(ctx context.Context, userID, period string) (int64, int64, error) {
	row, err := t.q.GetUsage(ctx, sqlitedb.GetUsageParams{UserID: userID, Period: period})
	return row.Tokens, row.CostMicros, interpretError(ctx, err)
}

// LockUserLeases needs no lock: the single writer connection already
// serializes every write transaction.
func (t tx) LockUserLeases(ctx context.Context, _ string) error { return ctx.Err() }

func (t tx) CountOtherLeases(ctx context.Context, userID, runID string, now time.Time) (int, error) {
	n, err := t.q.CountOtherLeases(ctx, sqlitedb.CountOtherLeasesParams{UserID: userID, RunID: runID, ExpiresAt: ms(now)})
	return int(n), interpretError(ctx, err)
}

func (t tx) UpsertLease(ctx context.Context, runID, userID string, until time.Time) error {
	err := t.q.UpsertLease(ctx, sqlitedb.UpsertLeaseParams{RunID: runID, UserID: userID, ExpiresAt: ms(until)})
	return interpretError(ctx, err)
}

func (t tx) LeaseHeld(ctx context.Context, runID string, now time.Time) (bool, error) {
	n, err := t.q.LeaseHeld(ctx, sqlitedb.LeaseHeldParams{RunID: runID, ExpiresAt: ms(now)})
	return n > 0, interpretError(ctx, err)
}

func (t tx) DeleteLease(ctx context.Context, runID string) error {
	return interpretError(ctx, t.q.DeleteLease(ctx, runID))
}
