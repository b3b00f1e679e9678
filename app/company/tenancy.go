package company

import (
	"context"
	"errors"
	"fmt"

	"keygate/domain/access"
	"keygate/domain/identity"
	"keygate/ports"
)

// Tenancy keeps every tenant-scoped object with the user who created it:
// members reach only their own objects, administrators reach all.
// Another user's object is reported as ports.ErrNotFound, exactly like a
// missing one, so ids cannot be probed.
type Tenancy struct {
	owners ports.OwnerStore
	memo   *ownerMemo // nil: every check reads the store
}

// NewTenancy returns the tenancy use case.
func NewTenancy(owners ports.OwnerStore) *Tenancy { return &Tenancy{owners: owners} }

// Claim records the caller on ctx (identity.FromContext) as the owner of a
// new object. A context without a caller, or an object that belongs to
// someone else, is refused with access.ErrDenied.
func (t *Tenancy) Claim(ctx context.Context, kind access.Kind, id string) error {
	who, ok := identity.FromContext(ctx)
	if !ok || who.Validate() != nil {
		return fmt.Errorf("claim %s %s: %w", kind, id, access.ErrDenied)
	}
	if t.memo.owns(kind, id, who.UserID) {
		return nil
	}
	// Every turn opens its conversation, so the owner is read first: a
	// conversation already claimed costs a read, not a write.
	owner, err := t.owners.Owner(ctx, kind, id)
	switch {
	case err == nil && owner == who.UserID:
		t.memo.saw(kind, id, owner)
		return nil
	case err == nil:
		return fmt.Errorf("claim %s %s: %w", kind, id, access.ErrDenied)
	case !errors.Is(err, ports.ErrNotFound):
		return err
	}
	err = t.owners.SetOwner(ctx, kind, id, who.UserID)
	if errors.Is(err, ports.ErrConflict) {
		return fmt.Errorf("claim %s %s: %w", kind, id, access.ErrDenied)
	}
	if err == nil {
		t.memo.saw(kind, id, who.UserID)
	}
	return err
}

// Authorize returns nil when p may reach (kind, id), and ports.ErrNotFound
// (wrapped) when the object is unknown or belongs to another user.
func (t *Tenancy) Authorize(ctx context.Context, p access.Principal, kind access.Kind, id string) error {
	owner, err := t.owners.Owner(ctx, kind, id)
	if errors.Is(err, ports.ErrNotFound) && p.IsAdmin() {
		return nil // an administrator may look at objects from before ownership was recorded
	}
	if err != nil {
		return err
	}
	if !p.CanSee(owner) {
		return fmt.Errorf("%s %s: %w", kind, id, ports.ErrNotFound)
	}
	return nil
}

// Visible filters ids (one page of a list) down to those p may see,
// keeping their order.
func (t *Tenancy) Visible(ctx context.Context, p access.Principal, kind access.Kind, ids []string) ([]string, error) {
	if p.IsAdmin() {
		return ids, nil
	}
	own, err := t.owners.OwnedAmong(ctx, kind, p.UserID, ids)
	if err != nil {
		return nil, err
	}
	keep := make(map[string]bool, len(own))
	for _, id := range own {
		keep[id] = true
	}
	out := make([]string, 0, len(own))
	for _, id := range ids {
		if keep[id] {
			out = append(out, id)
		}
	}
	return out, nil
}
