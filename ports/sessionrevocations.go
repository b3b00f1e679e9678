package ports

import (
	"context"
	"time"
)

// SessionRevocations remembers console sessions that were signed out
// before they expired. Sessions are sealed cookies that every replica can
// open without state; a revocation is the one piece of state they share,
// so that a copied cookie stops working at logout.
//
// Both methods return ctx.Err() (wrapped) on a cancelled context.
type SessionRevocations interface {
	// RevokeSession records that the session id may not be used again.
	// The record may be forgotten after expires, when the session would
	// have ended anyway. Revoking a session again changes nothing.
	RevokeSession(ctx context.Context, id string, expires time.Time) error

	// SessionRevoked reports whether the session id was revoked.
	SessionRevoked(ctx context.Context, id string) (bool, error)
}
