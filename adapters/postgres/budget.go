package postgres

import (
	"context"
	"time"

	"keygate/gen/sqlc/pgdb"
)

func (t tx) AddUsage(ctx context.Context, userID, period string, tokens, costMicros int64) error {
	err := t.q.AddUsage(ctx, pgdb.AddUsageParams{UserID: userID, Period: period, Tokens: tokens, CostMicros: costMicros})
	return interpretError(ctx, err)
}

func (t tx) GetUsage(ctx context.Context, userID, period string) (int64, int64, error) {
	row, err := t.q.GetUsage(ctx, pgdb.GetUsageParams{UserID: userID, Period: period})
	return row.Tokens, row.CostMicros, interpretError(ctx, err)
}

// LockUserLeases takes a transaction-scoped advisory lock on the user, so
// two replicas cannot both see room for one more run.
func (t tx) LockUserLeases(ctx context.Context, userID string) error {
	return interpretError(ctx, t.q.LockUserLeases(ctx, userID))
}

func (t tx) CountOtherLeases(ctx context.Context, userID, runID string, now time.Time) (int, error) {
	n, err := t.q.CountOtherLeases(ctx, pgdb.CountOtherLeasesParams{UserID: userID, RunID: runID, ExpiresAt: now})
	return int(n), interpretError(ctx, err)
}

func (t tx) UpsertLease(ctx context.Context, runID, userID string, until time.Time) error {
	err := t.q.UpsertLease(ctx, pgdb.UpsertLeaseParams{RunID: runID, UserID: userID, ExpiresAt: until})
	return interpretError(ctx, err)
}

func (t tx) LeaseHeld(ctx context.Context, runID string, now time.Time) (bool, error) {
	n, err := t.q.LeaseHeld(ctx, pgdb.LeaseHeldParams{RunID: runID, ExpiresAt: now})
	return n > 0, interpretError(ctx, err)
}

func (t tx) DeleteLease(ctx context.Context, runID string) error {
	return interpretError(ctx, t.q.DeleteLease(ctx, runID))
}
