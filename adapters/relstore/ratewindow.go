package relstore

import (
	"context"
	"fmt"
	"time"

	"keygate/ports"
)

// rateRows are the per-minute counter rows.
type rateRows interface {
	// AdmitRate counts one request in a window when it is below both
	// limits (0: none), atomically; it returns whether it counted and the
	// counts before.
	AdmitRate(ctx context.Context, scope string, window time.Time, maxRequests, maxTokens int64) (bool, int64, int64, error)
	AddRateTokens(ctx context.Context, scope string, window time.Time, tokens int64) error
	DeleteOldRateWindows(ctx context.Context, scope string, before time.Time) error
}

var _ ports.RateWindows = Routing{}

// Admit implements ports.RateWindows. It drops the scope's windows before
// this one in the same transaction, so a scope keeps one row.
func (r Routing) Admit(ctx context.Context, scope string, window time.Time, maxRequests, maxTokens int64) (bool, int64, int64, error) {
	var ok bool
	var requests, tokens int64
	window = window.UTC()
	err := r.s.engine.Write(ctx, func(tx Tx) error {
		if err := tx.DeleteOldRateWindows(ctx, scope, window); err != nil {
			return err
		}
		var err error
		ok, requests, tokens, err = tx.AdmitRate(ctx, scope, window, maxRequests, maxTokens)
		return err
	})
	if err != nil {
		return false, 0, 0, fmt.Errorf("admit %s: %w", scope, err)
	}
	return ok, requests, tokens, nil
}

// AddTokens implements ports.RateWindows.
func (r Routing) AddTokens(ctx context.Context, scope string, window time.Time, tokens int64) error {
	if err := r.s.engine.Write(ctx, func(tx Tx) error { return tx.AddRateTokens(ctx, scope, window.UTC(), tokens) }); err != nil {
		return fmt.Errorf("count tokens of %s: %w", scope, err)
	}
	return nil
}
