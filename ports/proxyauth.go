package ports

import (
	"context"
	"errors"

	"keygate/domain/identity"
)

// ErrNotAuthorized means the credentials name no active user (unknown, revoked
// or expired token). Callers answer it with 407 or 401 and never say which.
var ErrNotAuthorized = errors.New("not authorized")

// ProxyAuthenticator checks the personal gateway token a Cursor client
// presents to the company proxy (Proxy-Authorization on every CONNECT).
// Laptop installs have none: the proxy then treats every caller as
// identity.Local.
type ProxyAuthenticator interface {
	// Authenticate returns the identity token belongs to. It returns
	// ErrNotAuthorized (possibly wrapped) for an empty, unknown, revoked or
	// expired token, and any other error when it could not decide (store
	// down), which callers treat as a server failure, not a refusal. A
	// returned identity always passes Validate. It honours ctx cancellation
	// and is safe for concurrent use.
	Authenticate(ctx context.Context, token string) (identity.Identity, error)
}
