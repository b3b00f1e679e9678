package relstore

import (
	"context"
	"errors"
	"fmt"
	"time"

	"keygate/ports"
)

// budgetRows are the usage counter and run lease rows.
type budgetRows interface {
	AddUsage(ctx context.Context, userID, period string, tokens, costMicros int64) error
	// GetUsage returns ErrNotFound when the counter has no row.
	GetUsage(ctx context.Context, userID, period string) (tokens, costMicros int64, err error)
	// LockUserLeases serializes lease changes of one user until the
	// transaction ends (SQLite: its single writer already does).
	LockUserLeases(ctx context.Context, userID string) error
	CountOtherLeases(ctx context.Context, userID, runID string, now time.Time) (int, error)
	UpsertLease(ctx context.Context, runID, userID string, until time.Time) error
	DeleteLease(ctx context.Context, runID string) error
	// LeaseHeld reports whether runID's lease expires after now.
	LeaseHeld(ctx context.Context, runID string, now time.Time) (bool, error)
}

// Budgets implements ports.UsageCounter and ports.RunLeases.
type Budgets struct{ s *Store }

var (
	_ ports.UsageCounter = Budgets{}
	_ ports.RunLeases    = Budgets{}
)

// Budgets returns the usage counters and run leases.
func (s *Store) Budgets() Budgets { return Budgets{s} }

// AddUsage implements ports.UsageCounter.
func (b Budgets) AddUsage(ctx context.Context, userID string, periods []string, tokens, costMicros int64) error {
	err := b.s.engine.Write(ctx, func(tx Tx) error {
		for _, p := range periods {
			if err := tx.AddUsage(ctx, userID, p, tokens, costMicros); err != nil {
				return err
			}
		}
		return nil
	})
	if err != nil {
		return fmt.Errorf("add usage of %s: %w", userID, err)
	}
	return nil
}

// PeriodUsage implements ports.UsageCounter.
func (b Budgets) PeriodUsage(ctx context.Context, userID, period string) (tokens, costMicros int64, err error) {
	err = b.s.engine.Read(ctx, func(tx Tx) error {
		var err error
		tokens, costMicros, err = tx.GetUsage(ctx, userID, period)
		if errors.Is(err, ports.ErrNotFound) {
			tokens, costMicros, err = 0, 0, nil
		}
		return err
	})
	if err != nil {
		return 0, 0, fmt.Errorf("read usage of %s: %w", userID, err)
	}
	return tokens, costMicros, nil
}

// AcquireRun implements ports.RunLeases.
func (b Budgets) AcquireRun(ctx context.Context, userID, runID string, max int, now, until time.Time) (bool, error) {
	ok := false
	err := b.s.engine.Write(ctx, func(tx Tx) error {
		if err := tx.LockUserLeases(ctx, userID); err != nil {
			return err
		}
		n, err := tx.CountOtherLeases(ctx, userID, runID, now.UTC())
		if err != nil || n >= max {
			return err
		}
		ok = true
		return tx.UpsertLease(ctx, runID, userID, until.UTC())
	})
	if err != nil {
		return false, fmt.Errorf("acquire run lease %s: %w", runID, err)
	}
	return ok, nil
}

// HeldRun implements ports.RunLeases.
func (b Budgets) HeldRun(ctx context.Context, runID string, now time.Time) (bool, error) {
	held := false
	err := b.s.engine.Read(ctx, func(tx Tx) error {
		var err error
		held, err = tx.LeaseHeld(ctx, runID, now.UTC())
		return err
	})
	if err != nil {
		return false, fmt.Errorf("read run lease %s: %w", runID, err)
	}
	return held, nil
}

// ReleaseRun implements ports.RunLeases.
func (b Budgets) ReleaseRun(ctx context.Context, runID string) error {
	if err := b.s.engine.Write(ctx, func(tx Tx) error { return tx.DeleteLease(ctx, runID) }); err != nil {
		return fmt.Errorf("release run lease %s: %w", runID, err)
	}
	return nil
}
