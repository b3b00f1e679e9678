package ports

import (
	"context"
	"time"

	"keygate/domain/token"
)

// TokenStore keeps personal gateway tokens: their hash and life cycle,
// never their text. Revoked tokens stay stored so lists can show them.
//
// All methods return ctx.Err() (wrapped) on a cancelled context and then
// have written nothing.
type TokenStore interface {
	// CreateToken stores t, or returns ErrConflict when its ID or hash is
	// already stored. When admit is not nil the store first calls it with
	// every token stored for t's owner, in the transaction that stores t
	// and serialized with every other CreateToken for that owner on every
	// replica, and stores nothing when it returns an error, which
	// CreateToken returns (wrapped): a bound on a user's tokens holds
	// however many requests race.
	CreateToken(ctx context.Context, t token.Token, admit func(held []token.Token) error) error

	// TokenByHash returns the token stored under h, revoked or not, or
	// ErrNotFound. The lookup is by an index on the hash, so its time does
	// not depend on how much of a guessed token matches.
	TokenByHash(ctx context.Context, h token.Hash) (token.Token, error)

	// Tokens returns the tokens of userID, newest first; an empty userID
	// returns every user's tokens.
	Tokens(ctx context.Context, userID string) ([]token.Token, error)

	// RevokeToken sets the token's RevokedAt to at, or returns
	// ErrNotFound. Revoking a revoked token keeps the first time.
	RevokeToken(ctx context.Context, id string, at time.Time) error

	// TouchToken records a use at at, or returns ErrNotFound. A time
	// earlier than the stored LastUsedAt changes nothing.
	TouchToken(ctx context.Context, id string, at time.Time) error
}
