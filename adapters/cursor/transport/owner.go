package transport

import (
	"context"

	"keygate/domain/identity"
)

// caller is who sent an append or opened a RunSSE: the identity the Cursor
// proxy authenticated (identity.FromContext). A request without one is
// anonymous; anonymous callers match only each other, which is what
// adapter-level tests and an unauthenticated deployment need, while
// anything downstream that scopes data (the tenancy store) refuses them.
type caller struct {
	id    identity.Identity
	known bool
}

func callerOf(ctx context.Context) caller {
	id, ok := identity.FromContext(ctx)
	return caller{id: id, known: ok}
}

// runKey names a request id of one caller: request ids are the client's,
// so each caller has its own.
type runKey struct {
	known bool
	user  string
	id    string
}

func (c caller) runKey(requestID string) runKey {
	return runKey{known: c.known, user: c.id.UserID, id: requestID}
}

// runContext is the context a turn of this caller runs under: cancellable
// by the transport only, and carrying the caller's identity so that the
// run engine's stores and call records know whose turn it is.
func (c caller) runContext() context.Context {
	if !c.known {
		return context.Background()
	}
	return identity.NewContext(context.Background(), c.id)
}
