package access

import (
	"context"
	"errors"

	"keygate/domain/identity"
)

// Role is what a signed-in user may do.
type Role string

const (
	// Admin may configure Keygate and see every user's data.
	Admin Role = "admin"
	// Member may use Keygate and see only their own data.
	Member Role = "member"
	// ReadOnly may read Keygate's configuration and usage as an
	// administrator does and change nothing: the role of a service account
	// that monitors or exports. The control API lets it call only the
	// procedures that read configuration and usage, never conversations,
	// memories or call details.
	ReadOnly Role = "read-only"
)

// ErrDenied means the principal may not do this. Callers answer "not found"
// for another user's object, so that its existence does not leak.
var ErrDenied = errors.New("access denied")

// Principal is an authenticated user with their role.
type Principal struct {
	identity.Identity
	Role Role
}

// Local is the principal of a laptop install: its one user administers it.
var Local = Principal{Identity: identity.Local, Role: Admin}

// IsAdmin reports whether p is an administrator.
func (p Principal) IsAdmin() bool { return p.Role == Admin }

// CanSee reports whether p may read an object owned by ownerUserID.
func (p Principal) CanSee(ownerUserID string) bool {
	return p.IsAdmin() || (p.UserID != "" && p.UserID == ownerUserID)
}

// RequireAdmin returns ErrDenied unless p is an administrator.
func (p Principal) RequireAdmin() error {
	if !p.IsAdmin() {
		return ErrDenied
	}
	return nil
}

type contextKey struct{}

// NewContext returns a copy of ctx carrying p and p's identity, so code
// that only scopes by user (identity.FromContext) sees the same caller.
func NewContext(ctx context.Context, p Principal) context.Context {
	return identity.NewContext(context.WithValue(ctx, contextKey{}, p), p.Identity)
}

// FromContext returns the principal ctx carries; ok is false when no
// authentication ran, and callers must then refuse the request.
func FromContext(ctx context.Context) (p Principal, ok bool) {
	p, ok = ctx.Value(contextKey{}).(Principal)
	return p, ok
}
