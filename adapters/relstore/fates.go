package relstore

import (
	"context"
	"errors"
	"fmt"
	"time"

	"keygate/ports"
)

// Fates implements ports.SuggestionFates, ports.SuggestionFateLister and
// ports.SuggestionFatePurger: one row per user and request id, the latest
// fate reported.
type Fates struct{ s *Store }

var (
	_ ports.SuggestionFates      = Fates{}
	_ ports.SuggestionFateLister = Fates{}
	_ ports.SuggestionFatePurger = Fates{}
)

// Why RecordFate refuses a fate; both are mistakes of the caller, not of
// the store.
var (
	errFateRequestID = errors.New("a fate needs the request id of its suggestion")
	errFateUnknown   = errors.New("unknown fate")
)

type fateRows interface {
	UpsertTabFate(ctx context.Context, f ports.SuggestionFate) error
	// ListTabFates returns the fates of q (see ports.FateQuery), its Until
	// made explicit.
	ListTabFates(ctx context.Context, q ports.FateQuery) ([]ports.SuggestionFate, error)
	// DeleteTabFatesBefore deletes the fates recorded before cutoff and
	// returns how many.
	DeleteTabFatesBefore(ctx context.Context, cutoff time.Time) (int, error)
}

// RecordFate implements ports.SuggestionFates.
func (f Fates) RecordFate(ctx context.Context, sf ports.SuggestionFate) error {
	switch {
	case sf.RequestID == "":
		return fmt.Errorf("record fate: %w", errFateRequestID)
	case ParseFate(NameOf(sf.Fate)) == 0:
		return fmt.Errorf("record fate of %q: %w %d", sf.RequestID, errFateUnknown, sf.Fate)
	}
	if sf.At.IsZero() {
		sf.At = f.s.now()
	}
	sf.At = sf.At.UTC()
	if err := f.s.engine.Write(ctx, func(tx Tx) error { return tx.UpsertTabFate(ctx, sf) }); err != nil {
		return fmt.Errorf("record fate of %q: %w", sf.RequestID, err)
	}
	return nil
}

// SuggestionFates implements ports.SuggestionFateLister.
func (f Fates) SuggestionFates(ctx context.Context, q ports.FateQuery) ([]ports.SuggestionFate, error) {
	if q.Until.IsZero() {
		q.Until = Forever
	}
	var out []ports.SuggestionFate
	err := f.s.engine.Read(ctx, func(tx Tx) error {
		var err error
		out, err = tx.ListTabFates(ctx, q)
		return err
	})
	if err != nil {
		return nil, fmt.Errorf("list suggestion fates: %w", err)
	}
	return out, nil
}

// PurgeFates implements ports.SuggestionFatePurger.
func (f Fates) PurgeFates(ctx context.Context, cutoff time.Time) (int, error) {
	var n int
	err := f.s.engine.Write(ctx, func(tx Tx) error {
		var err error
		n, err = tx.DeleteTabFatesBefore(ctx, cutoff)
		return err
	})
	if err != nil {
		return 0, fmt.Errorf("purge suggestion fates: %w", err)
	}
	return n, nil
}
