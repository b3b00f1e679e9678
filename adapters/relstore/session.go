package relstore

import (
	"context"
	"fmt"
	"time"

	"keygate/ports"
)

// sessionRows are the revoked console sessions.
type sessionRows interface {
	// InsertRevokedSession does nothing when id is already revoked.
	InsertRevokedSession(ctx context.Context, id string, expires time.Time) error
	CountRevokedSession(ctx context.Context, id string) (int64, error)
	DeleteRevokedSessionsBefore(ctx context.Context, cutoff time.Time) error
}

// Sessions implements ports.SessionRevocations.
type Sessions struct{ s *Store }

var _ ports.SessionRevocations = Sessions{}

// Sessions returns the session revocation store.
func (s *Store) Sessions() Sessions { return Sessions{s} }

// RevokeSession implements ports.SessionRevocations. Revocations of
// sessions that have expired since are purged on the way, so the table
// holds at most the sessions signed out within one session lifetime.
func (x Sessions) RevokeSession(ctx context.Context, id string, expires time.Time) error {
	err := x.s.engine.Write(ctx, func(tx Tx) error {
		if err := tx.DeleteRevokedSessionsBefore(ctx, x.s.now()); err != nil {
			return err
		}
		return tx.InsertRevokedSession(ctx, id, expires)
	})
	if err != nil {
		return fmt.Errorf("revoke session: %w", err)
	}
	return nil
}

// SessionRevoked implements ports.SessionRevocations.
func (x Sessions) SessionRevoked(ctx context.Context, id string) (bool, error) {
	var n int64
	err := x.s.engine.Read(ctx, func(tx Tx) error {
		var err error
		n, err = tx.CountRevokedSession(ctx, id)
		return err
	})
	if err != nil {
		return false, fmt.Errorf("check session revocation: %w", err)
	}
	return n > 0, nil
}
