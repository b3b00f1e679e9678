package relstore

import (
	"context"
	"fmt"
	"time"

	"keygate/domain/budget"
	"keygate/ports"
)

// budgetLimitRows are the budget limit, revision and alert rows.
type budgetLimitRows interface {
	ListBudgetLimits(ctx context.Context) ([]budget.ScopedLimits, error)
	UpsertBudgetLimits(ctx context.Context, l budget.ScopedLimits) error
	// DeleteBudgetLimits reports whether the scope had limits.
	DeleteBudgetLimits(ctx context.Context, s budget.Scope) (bool, error)
	// BumpBudgetRevision increases the revision and returns it.
	BumpBudgetRevision(ctx context.Context) (int64, error)
	GetBudgetRevision(ctx context.Context) (int64, error)
	// ClaimBudgetAlert reports whether key was not claimed before.
	ClaimBudgetAlert(ctx context.Context, key string, at time.Time) (bool, error)
}

// BudgetLimits implements ports.BudgetLimitStore.
type BudgetLimits struct{ s *Store }

var _ ports.BudgetLimitStore = BudgetLimits{}

// BudgetLimits returns the store of budget limits set in the console.
func (s *Store) BudgetLimits() BudgetLimits { return BudgetLimits{s} }

// PutBudgetLimits implements ports.BudgetLimitStore.
func (st BudgetLimits) PutBudgetLimits(ctx context.Context, l budget.ScopedLimits, at time.Time) (int64, error) {
	if err := l.Scope.Validate(); err != nil {
		return 0, fmt.Errorf("put budget limits: %w", err)
	}
	if err := l.Limits.Validate(); err != nil {
		return 0, fmt.Errorf("put budget limits of %s: %w", l.Scope, err)
	}
	l.UpdatedAt = at.UTC().Truncate(time.Millisecond)
	var rev int64
	err := st.s.engine.Write(ctx, func(tx Tx) error {
		if err := tx.UpsertBudgetLimits(ctx, l); err != nil {
			return err
		}
		var err error
		rev, err = tx.BumpBudgetRevision(ctx)
		return err
	})
	if err != nil {
		return 0, fmt.Errorf("put budget limits of %s: %w", l.Scope, err)
	}
	return rev, nil
}

// DeleteBudgetLimits implements ports.BudgetLimitStore.
func (st BudgetLimits) DeleteBudgetLimits(ctx context.Context, scope budget.Scope) (int64, error) {
	var rev int64
	err := st.s.engine.Write(ctx, func(tx Tx) error {
		ok, err := tx.DeleteBudgetLimits(ctx, scope)
		if err != nil {
			return err
		}
		if !ok {
			return ports.ErrNotFound
		}
		rev, err = tx.BumpBudgetRevision(ctx)
		return err
	})
	if err != nil {
		return 0, fmt.Errorf("delete budget limits of %s: %w", scope, err)
	}
	return rev, nil
}

// BudgetLimits implements ports.BudgetLimitStore.
func (st BudgetLimits) BudgetLimits(ctx context.Context) ([]budget.ScopedLimits, int64, error) {
	var (
		out []budget.ScopedLimits
		rev int64
	)
	err := st.s.engine.Read(ctx, func(tx Tx) error {
		var err error
		if rev, err = tx.GetBudgetRevision(ctx); err != nil {
			return err
		}
		out, err = tx.ListBudgetLimits(ctx)
		return err
	})
	if err != nil {
		return nil, 0, fmt.Errorf("list budget limits: %w", err)
	}
	return out, rev, nil
}

// BudgetRevision implements ports.BudgetLimitStore.
func (st BudgetLimits) BudgetRevision(ctx context.Context) (int64, error) {
	var rev int64
	err := st.s.engine.Read(ctx, func(tx Tx) error {
		var err error
		rev, err = tx.GetBudgetRevision(ctx)
		return err
	})
	if err != nil {
		return 0, fmt.Errorf("read budget revision: %w", err)
	}
	return rev, nil
}

// ClaimBudgetAlert implements ports.BudgetLimitStore.
func (st BudgetLimits) ClaimBudgetAlert(ctx context.Context, key string, at time.Time) (bool, error) {
	first := false
	err := st.s.engine.Write(ctx, func(tx Tx) error {
		var err error
		first, err = tx.ClaimBudgetAlert(ctx, key, at.UTC())
		return err
	})
	if err != nil {
		return false, fmt.Errorf("claim budget alert %q: %w", key, err)
	}
	return first, nil
}

// BudgetLimitColumns is a budget_limits row (sqlc's BudgetLimit and
// UpsertBudgetLimitsParams), T the engine's [Stamp].
type BudgetLimitColumns[T Stamp] struct {
	Kind                string
	Subject             string
	TokensPerDay        int64
	CostPerMonth        int64
	ConcurrentRuns      int64
	ConcurrentSubagents int64
	RequestsPerMinute   int64
	TokensPerMinute     int64
	UpdatedAt           T
}

// BudgetLimitOf is how l is stored.
func BudgetLimitOf[T Stamp](l budget.ScopedLimits) BudgetLimitColumns[T] {
	return BudgetLimitColumns[T]{Kind: string(l.Scope.Kind), Subject: l.Scope.ID,
		TokensPerDay: l.Limits.TokensPerDay, CostPerMonth: l.Limits.CostPerMonth,
		ConcurrentRuns: int64(l.Limits.ConcurrentRuns), ConcurrentSubagents: int64(l.Limits.ConcurrentSubagents),
		RequestsPerMinute: l.Limits.RequestsPerMinute, TokensPerMinute: l.Limits.TokensPerMinute,
		UpdatedAt: StampOf[T](l.UpdatedAt)}
}

// ScopedLimits maps the row.
func (r BudgetLimitColumns[T]) ScopedLimits() budget.ScopedLimits {
	return budget.ScopedLimits{Scope: budget.Scope{Kind: budget.ScopeKind(r.Kind), ID: r.Subject},
		Limits: budget.Limits{TokensPerDay: r.TokensPerDay, CostPerMonth: r.CostPerMonth,
			ConcurrentRuns: int(r.ConcurrentRuns), ConcurrentSubagents: int(r.ConcurrentSubagents),
			RequestsPerMinute: r.RequestsPerMinute, TokensPerMinute: r.TokensPerMinute},
		UpdatedAt: TimeOf(r.UpdatedAt)}
}
