package identity

import (
	"context"
	"errors"
)

// Identity is an authenticated caller.
type Identity struct {
	// UserID is stable for the user's lifetime and scopes their data. It is
	// never empty in a valid Identity.
	UserID string
	// Name is for display and logs (an e-mail address or a login); it may be
	// empty and never scopes anything.
	Name string
}

// LocalUserID is the user id of a laptop install, where the proxy asks for
// no credentials and every request belongs to the one local user.
const LocalUserID = "local"

// Local is the identity of every request on a laptop install.
var Local = Identity{UserID: LocalUserID, Name: "local user"}

// ErrNoUser means an Identity without a user id.
var ErrNoUser = errors.New("identity has no user id")

// Validate reports ErrNoUser when the identity could not scope anything.
func (i Identity) Validate() error {
	if i.UserID == "" {
		return ErrNoUser
	}
	return nil
}

type contextKey struct{}

// NewContext returns a copy of ctx that carries id.
func NewContext(ctx context.Context, id Identity) context.Context {
	return context.WithValue(ctx, contextKey{}, id)
}

// FromContext returns the identity ctx carries. ok is false when nothing
// authenticated the request; callers must then refuse it rather than fall
// back to a default user, so that a wiring mistake cannot merge users.
func FromContext(ctx context.Context) (id Identity, ok bool) {
	id, ok = ctx.Value(contextKey{}).(Identity)
	return id, ok
}
