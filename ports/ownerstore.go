package ports

import (
	"context"

	"keygate/domain/access"
)

// OwnerStore records which user owns each tenant-scoped object. An object
// never changes hands.
//
// All methods return ctx.Err() (wrapped) on a cancelled context; a
// cancelled SetOwner has recorded nothing.
type OwnerStore interface {
	// SetOwner records userID as the owner of (kind, id). Recording the
	// same owner again changes nothing; another owner returns ErrConflict.
	SetOwner(ctx context.Context, kind access.Kind, id, userID string) error

	// Owner returns the owner of (kind, id), or ErrNotFound.
	Owner(ctx context.Context, kind access.Kind, id string) (string, error)

	// OwnedAmong returns the ids among ids that userID owns, in no
	// particular order; it filters a page of a list for a member.
	OwnedAmong(ctx context.Context, kind access.Kind, userID string, ids []string) ([]string, error)
}
