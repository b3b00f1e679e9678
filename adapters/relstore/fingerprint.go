package relstore

import (
	"context"
	"fmt"
	"time"

	"keygate/ports"
)

// fingerprintRows are a deployment's recorded fingerprints.
type fingerprintRows interface {
	GetFingerprint(ctx context.Context, name string) (string, error)
	// InsertFingerprint does nothing when name has a fingerprint already.
	InsertFingerprint(ctx context.Context, name, fp string, now time.Time) error
	// ReplaceFingerprint returns false when name's fingerprint is not old.
	ReplaceFingerprint(ctx context.Context, name, old, fp string, now time.Time) (bool, error)
}

// Fingerprints implements ports.FingerprintStore.
type Fingerprints struct{ s *Store }

var _ ports.FingerprintStore = Fingerprints{}

// Fingerprints returns the deployment's fingerprint store.
func (s *Store) Fingerprints() Fingerprints { return Fingerprints{s} }

// Fingerprint implements ports.FingerprintStore.
func (x Fingerprints) Fingerprint(ctx context.Context, name string) (string, error) {
	var fp string
	err := x.s.engine.Read(ctx, func(tx Tx) error {
		var err error
		fp, err = tx.GetFingerprint(ctx, name)
		return err
	})
	if err != nil {
		return "", fmt.Errorf("read fingerprint %q: %w", name, err)
	}
	return fp, nil
}

// RecordFingerprint implements ports.FingerprintStore: the insert does
// nothing when a row exists, and the read in the same transaction sees the
// row that won.
func (x Fingerprints) RecordFingerprint(ctx context.Context, name, fp string) (string, error) {
	var recorded string
	err := x.s.engine.Write(ctx, func(tx Tx) error {
		if err := tx.InsertFingerprint(ctx, name, fp, x.s.now()); err != nil {
			return err
		}
		var err error
		recorded, err = tx.GetFingerprint(ctx, name)
		return err
	})
	if err != nil {
		return "", fmt.Errorf("record fingerprint %q: %w", name, err)
	}
	return recorded, nil
}

// ReplaceFingerprint implements ports.FingerprintStore.
func (x Fingerprints) ReplaceFingerprint(ctx context.Context, name, old, fp string) error {
	err := x.s.engine.Write(ctx, func(tx Tx) error {
		ok, err := tx.ReplaceFingerprint(ctx, name, old, fp, x.s.now())
		if err != nil || ok {
			return err
		}
		if _, err := tx.GetFingerprint(ctx, name); err != nil {
			return err
		}
		return ports.ErrConflict
	})
	if err != nil {
		return fmt.Errorf("replace fingerprint %q: %w", name, err)
	}
	return nil
}
