package sqlite

import (
	"context"
	"time"

	"keygate/adapters/relstore"
	"keygate/domain/budget"
	"keygate/gen/sqlc/sqlitedb"
)

// Budget limits set in the console: relstore builds and maps the rows
// (budgetlimit.go), this file binds them to the generated queries.

func (t tx) ListBudgetLimits(ctx context.Context) ([]budget.ScopedLimits, error) {
	rows, err := t.q.ListBudgetLimits(ctx)
	return relstore.Pick(rows, func(r sqlitedb.BudgetLimit) budget.ScopedLimits {
		return relstore.BudgetLimitColumns[int64](r).ScopedLimits()
	}), interpretError(ctx, err)
}

func (t tx) UpsertBudgetLimits(ctx context.Context, l budget.ScopedLimits) error {
	return interpretError(ctx, t.q.UpsertBudgetLimits(ctx, sqlitedb.UpsertBudgetLimitsParams(relstore.BudgetLimitOf[int64](l))))
}

func (t tx) DeleteBudgetLimits(ctx context.Context, s budget.Scope) (bool, error) {
	n, err := t.q.DeleteBudgetLimits(ctx, sqlitedb.DeleteBudgetLimitsParams{Kind: string(s.Kind), Subject: s.ID})
	return n > 0, interpretError(ctx, err)
}

func (t tx) BumpBudgetRevision(ctx context.Context) (int64, error) {
	rev, err := t.q.BumpBudgetRevision(ctx)
	return rev, interpretError(ctx, err)
}

func (t tx) GetBudgetRevision(ctx context.Context) (int64, error) {
	rev, err := t.q.GetBudgetRevision(ctx)
	return rev, interpretError(ctx, err)
}

func (t tx) ClaimBudgetAlert(ctx context.Context, key string, at time.Time) (bool, error) {
	n, err := t.q.ClaimBudgetAlert(ctx, sqlitedb.ClaimBudgetAlertParams{AlertKey: key, SentAt: relstore.StampOf[int64](at)})
	return n > 0, interpretError(ctx, err)
}
