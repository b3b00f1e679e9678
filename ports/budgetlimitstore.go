package ports

import (
	"context"
	"time"

	"keygate/domain/budget"
)

// BudgetLimitStore keeps the budget limits administrators set, by scope
// (the default, a user, a team), and a revision number that every change
// increases, so that each replica notices a change with one small read and
// reloads the limits only then. It also remembers which budget alerts were
// sent, so that every replica sends each one once.
//
// All methods return ctx.Err() (wrapped) on a cancelled context and then
// have written nothing.
type BudgetLimitStore interface {
	// PutBudgetLimits creates or replaces the limits of l.Scope (which
	// passed Validate, as did l.Limits), stamps them with at, and returns
	// the revision after the change.
	PutBudgetLimits(ctx context.Context, l budget.ScopedLimits, at time.Time) (int64, error)

	// DeleteBudgetLimits removes scope's limits and returns the revision
	// after the change, or ErrNotFound when scope has none.
	DeleteBudgetLimits(ctx context.Context, scope budget.Scope) (int64, error)

	// BudgetLimits returns every stored scope's limits, ordered by kind
	// then id, and the revision they are at, read together.
	BudgetLimits(ctx context.Context) ([]budget.ScopedLimits, int64, error)

	// BudgetRevision returns the current revision: 0 before any change.
	BudgetRevision(ctx context.Context) (int64, error)

	// ClaimBudgetAlert records key (a scope, limit, threshold and period)
	// as sent at at and reports true, or reports false when it was
	// claimed before, by any replica.
	ClaimBudgetAlert(ctx context.Context, key string, at time.Time) (bool, error)
}
