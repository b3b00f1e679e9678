package ports

import (
	"context"
	"time"
)

// RouteAffinity remembers, per conversation and route, the target that
// served the conversation's last call, so that every replica keeps the
// conversation where the provider's prompt cache is warm.
//
// Both methods return ctx.Err() (wrapped) on a cancelled context.
type RouteAffinity interface {
	// Affinity returns the target that last served conversationID on
	// routeID, or ErrNotFound.
	Affinity(ctx context.Context, conversationID, routeID string) (string, error)

	// SetAffinity records that targetID served conversationID on routeID at
	// at; the latest write wins.
	SetAffinity(ctx context.Context, conversationID, routeID, targetID string, at time.Time) error
}
