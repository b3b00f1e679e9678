package ports

import (
	"context"
	"time"
)

// MembershipStore keeps, per user, the groups their identity provider
// asserted the latest time the console saw them (a request through the
// authenticating proxy, an OIDC sign-in). The Cursor proxy sees only a
// gateway token: it maps the owner's recorded groups through the current
// role map, so a user the console would refuse is refused there too.
//
// All methods return ctx.Err() (wrapped) on a cancelled context and then
// have written nothing.
type MembershipStore interface {
	// RecordGroups stores groups as userID's, seen at at. A record seen
	// later than at is kept (replicas may record out of order).
	RecordGroups(ctx context.Context, userID string, groups []string, at time.Time) error

	// Groups returns userID's recorded groups (nil for none) and when they
	// were seen, or ErrNotFound when nothing was recorded for them.
	Groups(ctx context.Context, userID string) ([]string, time.Time, error)
}
