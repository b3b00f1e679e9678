package relstore

import (
	"context"
	"fmt"
	"time"

	"keygate/domain/access"
	"keygate/domain/identity"
	"keygate/domain/token"
	"keygate/ports"
)

// ServiceAccountColumns is a service_accounts row (sqlc's ServiceAccount
// and InsertServiceAccountParams), T the engine's [Stamp].
type ServiceAccountColumns[T Stamp] struct {
	ID         string
	Name       string
	Role       string
	CreatedBy  string
	Hash       []byte
	Hint       string
	CreatedAt  T
	ExpiresAt  T
	LastUsedAt T
	RevokedAt  T
}

// ServiceAccountOf is how a is stored.
func ServiceAccountOf[T Stamp](a ports.ServiceAccount) ServiceAccountColumns[T] {
	k := a.Key
	return ServiceAccountColumns[T]{
		ID: k.ID, Name: k.Name, Role: string(a.Role), CreatedBy: a.CreatedBy, Hash: k.Hash[:], Hint: k.Hint,
		CreatedAt: StampOf[T](k.CreatedAt), ExpiresAt: StampOf[T](k.ExpiresAt), LastUsedAt: StampOf[T](k.LastUsedAt), RevokedAt: StampOf[T](k.RevokedAt),
	}
}

// ServiceAccount maps the row.
func (r ServiceAccountColumns[T]) ServiceAccount() ports.ServiceAccount {
	k := token.Token{
		ID: r.ID, Owner: identity.Identity{UserID: "sa:" + r.ID, Name: r.Name}, Name: r.Name, Hint: r.Hint,
		CreatedAt: TimeOf(r.CreatedAt), ExpiresAt: TimeOf(r.ExpiresAt), LastUsedAt: TimeOf(r.LastUsedAt), RevokedAt: TimeOf(r.RevokedAt),
	}
	copy(k.Hash[:], r.Hash)
	return ports.ServiceAccount{Key: k, Role: access.Role(r.Role), CreatedBy: r.CreatedBy}
}

// serviceAccountRows are the service-account rows. Times not set are the
// zero time.
type serviceAccountRows interface {
	InsertServiceAccount(ctx context.Context, a ports.ServiceAccount) error
	ServiceAccountByHash(ctx context.Context, h token.Hash) (ports.ServiceAccount, error)
	ListServiceAccounts(ctx context.Context) ([]ports.ServiceAccount, error)
	// RevokeServiceAccount and TouchServiceAccount return false for an
	// unknown id.
	RevokeServiceAccount(ctx context.Context, id string, at time.Time) (bool, error)
	TouchServiceAccount(ctx context.Context, id string, at time.Time) (bool, error)
}

// ServiceAccounts implements ports.ServiceAccountStore.
type ServiceAccounts struct{ s *Store }

var _ ports.ServiceAccountStore = ServiceAccounts{}

// ServiceAccounts returns the service-account store.
func (s *Store) ServiceAccounts() ServiceAccounts { return ServiceAccounts{s} }

// CreateServiceAccount implements ports.ServiceAccountStore.
func (sa ServiceAccounts) CreateServiceAccount(ctx context.Context, a ports.ServiceAccount) error {
	a.Key.CreatedAt = a.Key.CreatedAt.UTC()
	if err := sa.s.engine.Write(ctx, func(tx Tx) error { return tx.InsertServiceAccount(ctx, a) }); err != nil {
		return fmt.Errorf("create service account %s: %w", a.Key.ID, err)
	}
	return nil
}

// ServiceAccountByHash implements ports.ServiceAccountStore.
func (sa ServiceAccounts) ServiceAccountByHash(ctx context.Context, h token.Hash) (ports.ServiceAccount, error) {
	var a ports.ServiceAccount
	err := sa.s.engine.Read(ctx, func(tx Tx) error {
		var err error
		a, err = tx.ServiceAccountByHash(ctx, h)
		return err
	})
	if err != nil {
		return ports.ServiceAccount{}, fmt.Errorf("find service account: %w", err)
	}
	return a, nil
}

// ServiceAccounts implements ports.ServiceAccountStore.
func (sa ServiceAccounts) ServiceAccounts(ctx context.Context) ([]ports.ServiceAccount, error) {
	var out []ports.ServiceAccount
	err := sa.s.engine.Read(ctx, func(tx Tx) error {
		var err error
		out, err = tx.ListServiceAccounts(ctx)
		return err
	})
	if err != nil {
		return nil, fmt.Errorf("list service accounts: %w", err)
	}
	return out, nil
}

// RevokeServiceAccount implements ports.ServiceAccountStore.
func (sa ServiceAccounts) RevokeServiceAccount(ctx context.Context, id string, at time.Time) error {
	return sa.update(ctx, "revoke", id, func(tx Tx) (bool, error) { return tx.RevokeServiceAccount(ctx, id, at.UTC()) })
}

// TouchServiceAccount implements ports.ServiceAccountStore.
func (sa ServiceAccounts) TouchServiceAccount(ctx context.Context, id string, at time.Time) error {
	return sa.update(ctx, "touch", id, func(tx Tx) (bool, error) { return tx.TouchServiceAccount(ctx, id, at.UTC()) })
}

func (sa ServiceAccounts) update(ctx context.Context, verb, id string, fn func(Tx) (bool, error)) error {
	err := sa.s.engine.Write(ctx, func(tx Tx) error {
		found, err := fn(tx)
		if err == nil && !found {
			err = ports.ErrNotFound
		}
		return err
	})
	if err != nil {
		return fmt.Errorf("%s service account %s: %w", verb, id, err)
	}
	return nil
}
