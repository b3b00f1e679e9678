package postgres

import (
	"context"
	"time"

	"keygate/adapters/relstore"
	"keygate/domain/budget"
	"keygate/gen/sqlc/pgdb"
)

// Budget limits set in the console: relstore builds and maps the rows
// (budgetlimit.go), this file binds them to the generated queries.

func (t tx) ListBudgetLimits(ctx context.Context) ([]budget.ScopedLimits, error) {
	rows, err := t.q.ListBudgetLimits(ctx)
	return relstore.Pick(rows, func(r pgdb.BudgetLimit) budget.ScopedLimits {
		return relstore.BudgetLimitColumns[time.Time](r).ScopedLimits()
	}), interpretError(ctx, err)
}

func (t tx) UpsertBudgetLimits(ctx context.Context, l budget.ScopedLimits) error {
	return interpretError(ctx, t.q.UpsertBudgetLimits(ctx, pgdb.UpsertBudgetLimitsParams(relstore.BudgetLimitOf[time.Time](l))))
}

func (t tx) DeleteBudgetLimits(ctx context.Context, s budget.Scope) (bool, error) {
	n, err := t.q.DeleteBudgetLimits(ctx, pgdb.DeleteBudgetLimitsParams{Kind: string(s.Kind), Subject: s.ID})
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
	n, err := t.q.ClaimBudgetAlert(ctx, pgdb.ClaimBudgetAlertParams{AlertKey: key, SentAt: relstore.StampOf[time.Time](at)})
	return n > 0, interpretError(ctx, err)
}
