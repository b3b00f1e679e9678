package relstore

import (
	"context"
	"fmt"
	"time"

	"keygate/domain/access"
	"keygate/ports"
)

// ownerRows are the owner rows of tenant-scoped objects.
type ownerRows interface {
	// InsertOwner does nothing when (kind, id) already has an owner.
	InsertOwner(ctx context.Context, kind access.Kind, id, userID string, now time.Time) error
	GetOwner(ctx context.Context, kind access.Kind, id string) (string, error)
	OwnedAmong(ctx context.Context, kind access.Kind, userID string, ids []string) ([]string, error)
}

// Owners implements ports.OwnerStore.
type Owners struct{ s *Store }

var _ ports.OwnerStore = Owners{}

// Owners returns the owner store.
func (s *Store) Owners() Owners { return Owners{s} }

// SetOwner implements ports.OwnerStore.
func (o Owners) SetOwner(ctx context.Context, kind access.Kind, id, userID string) error {
	err := o.s.engine.Write(ctx, func(tx Tx) error {
		if err := tx.InsertOwner(ctx, kind, id, userID, o.s.now()); err != nil {
			return err
		}
		owner, err := tx.GetOwner(ctx, kind, id)
		if err == nil && owner != userID {
			err = ports.ErrConflict
		}
		return err
	})
	if err != nil {
		return fmt.Errorf("set owner of %s %s: %w", kind, id, err)
	}
	return nil
}

// Owner implements ports.OwnerStore.
func (o Owners) Owner(ctx context.Context, kind access.Kind, id string) (string, error) {
	var owner string
	err := o.s.engine.Read(ctx, func(tx Tx) error {
		var err error
		owner, err = tx.GetOwner(ctx, kind, id)
		return err
	})
	if err != nil {
		return "", fmt.Errorf("owner of %s %s: %w", kind, id, err)
	}
	return owner, nil
}

// OwnedAmong implements ports.OwnerStore.
func (o Owners) OwnedAmong(ctx context.Context, kind access.Kind, userID string, ids []string) ([]string, error) {
	if len(ids) == 0 {
		return nil, nil
	}
	var out []string
	err := o.s.engine.Read(ctx, func(tx Tx) error {
		var err error
		out, err = tx.OwnedAmong(ctx, kind, userID, ids)
		return err
	})
	if err != nil {
		return nil, fmt.Errorf("filter %s ids by owner: %w", kind, err)
	}
	return out, nil
}
