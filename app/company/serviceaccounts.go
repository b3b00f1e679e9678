package company

import (
	"context"
	"crypto/subtle"
	"errors"
	"fmt"
	"io"

	"keygate/domain/access"
	"keygate/domain/identity"
	"keygate/domain/token"
	"keygate/ports"
)

// ServiceAccountPolicy bounds service-account keys: at most a year, 90
// days when none is asked; a key that never expires is refused.
var ServiceAccountPolicy = token.Policy{MaxDays: 365}

// ErrRole means a service account's role is neither admin nor read-only.
var ErrRole = errors.New("a service account's role is admin or read-only")

// ServiceAccounts is the service-account use case: administrators create,
// list and revoke API keys for the control API, each with a role (admin
// or read-only) and an expiry; the sign-in gate authenticates a request
// that carries one. Creation and revocation are audited like people's
// actions, and every call a key makes is audited under its account
// (Principal UserID "sa:" and the key id) by the use cases it reaches.
type ServiceAccounts struct {
	store  ports.ServiceAccountStore
	clock  ports.Clock
	random io.Reader
	audit  *Auditor
}

// NewServiceAccounts returns the use case. random is crypto/rand.Reader in
// production; audit may be nil.
func NewServiceAccounts(store ports.ServiceAccountStore, clock ports.Clock, random io.Reader, audit *Auditor) *ServiceAccounts {
	return &ServiceAccounts{store: store, clock: clock, random: random, audit: audit}
}

// accountView is what the audit log keeps of an account (never its hash).
func accountView(a ports.ServiceAccount) map[string]string {
	return map[string]string{"id": a.Key.ID, "name": a.Key.Name, "role": string(a.Role), "hint": a.Key.Hint,
		"expires": a.Key.ExpiresAt.UTC().Format("2006-01-02T15:04:05Z")}
}

// Create mints an account named name with role, whose key lives days days
// (0: 90), and returns it and the key's text, which is shown once. Only an
// administrator may (access.ErrDenied otherwise).
func (s *ServiceAccounts) Create(ctx context.Context, caller access.Principal, name string, role access.Role, days int) (ports.ServiceAccount, string, error) {
	if err := caller.RequireAdmin(); err != nil {
		return ports.ServiceAccount{}, "", fmt.Errorf("create service account: %w", err)
	}
	if role != access.Admin && role != access.ReadOnly {
		return ports.ServiceAccount{}, "", fmt.Errorf("create service account: %w", ErrRole)
	}
	if days == 0 {
		days = 90
	}
	ttl, err := ServiceAccountPolicy.Lifetime(days)
	if err != nil {
		return ports.ServiceAccount{}, "", fmt.Errorf("create service account: %w", err)
	}
	key, text, err := token.New(s.random, identity.Identity{UserID: "sa", Name: name}, name, s.clock.Now(), ttl)
	if err != nil {
		return ports.ServiceAccount{}, "", fmt.Errorf("create service account: %w", err)
	}
	key.Owner = identity.Identity{UserID: "sa:" + key.ID, Name: key.Name}
	a := ports.ServiceAccount{Key: key, Role: role, CreatedBy: caller.UserID}
	if err := s.store.CreateServiceAccount(ctx, a); err != nil {
		return ports.ServiceAccount{}, "", err
	}
	if s.audit != nil {
		if err := s.audit.Record(ctx, caller, "service_account.create", key.ID, nil, accountView(a)); err != nil {
			return a, text, err
		}
	}
	return a, text, nil
}

// List returns every account, newest first; only an administrator may.
func (s *ServiceAccounts) List(ctx context.Context, caller access.Principal) ([]ports.ServiceAccount, error) {
	if err := caller.RequireAdmin(); err != nil {
		return nil, fmt.Errorf("list service accounts: %w", err)
	}
	return s.store.ServiceAccounts(ctx)
}

// Revoke revokes account id at once on every replica; only an
// administrator may. An unknown id is ports.ErrNotFound.
func (s *ServiceAccounts) Revoke(ctx context.Context, caller access.Principal, id string) (ports.ServiceAccount, error) {
	if err := caller.RequireAdmin(); err != nil {
		return ports.ServiceAccount{}, fmt.Errorf("revoke service account: %w", err)
	}
	list, err := s.store.ServiceAccounts(ctx)
	if err != nil {
		return ports.ServiceAccount{}, err
	}
	for _, a := range list {
		if a.Key.ID != id {
			continue
		}
		if err := s.store.RevokeServiceAccount(ctx, id, s.clock.Now()); err != nil {
			return ports.ServiceAccount{}, err
		}
		if s.audit != nil {
			if err := s.audit.Record(ctx, caller, "service_account.revoke", id, accountView(a), nil); err != nil {
				return a, err
			}
		}
		return a, nil
	}
	return ports.ServiceAccount{}, fmt.Errorf("revoke service account %s: %w", id, ports.ErrNotFound)
}

// Authenticate returns the principal of the account whose key is text,
// or ports.ErrNotAuthorized for an unknown, malformed, revoked or expired
// key. The key is found by its hash and compared once more in constant
// time; a use is recorded at most once per token.TouchInterval.
func (s *ServiceAccounts) Authenticate(ctx context.Context, text string) (access.Principal, error) {
	if token.Check(text) != nil {
		return access.Principal{}, fmt.Errorf("authenticate service account: %w", ports.ErrNotAuthorized)
	}
	h := token.HashOf(text)
	a, err := s.store.ServiceAccountByHash(ctx, h)
	if errors.Is(err, ports.ErrNotFound) {
		return access.Principal{}, fmt.Errorf("authenticate service account: %w", ports.ErrNotAuthorized)
	}
	if err != nil {
		return access.Principal{}, fmt.Errorf("authenticate service account: %w", err)
	}
	now := s.clock.Now()
	if subtle.ConstantTimeCompare(a.Key.Hash[:], h[:]) != 1 || ServiceAccountPolicy.Usable(a.Key, now) != nil ||
		(a.Role != access.Admin && a.Role != access.ReadOnly) {
		return access.Principal{}, fmt.Errorf("authenticate service account: %w", ports.ErrNotAuthorized)
	}
	if a.Key.NeedsTouch(now) {
		_ = s.store.TouchServiceAccount(ctx, a.Key.ID, now)
	}
	return access.Principal{Identity: a.Key.Owner, Role: a.Role}, nil
}
