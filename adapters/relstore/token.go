package relstore

import (
	"context"
	"fmt"
	"time"

	"keygate/domain/token"
	"keygate/ports"
)

// tokenRows are the gateway-token rows. Times not set are the zero time.
type tokenRows interface {
	// LockTokenOwner serializes token creations of one user until the
	// transaction ends (SQLite's single writer already does).
	LockTokenOwner(ctx context.Context, userID string) error
	InsertToken(ctx context.Context, t token.Token) error
	TokenByHash(ctx context.Context, h token.Hash) (token.Token, error)
	// ListTokens returns userID's tokens newest first; "" lists all.
	ListTokens(ctx context.Context, userID string) ([]token.Token, error)
	// RevokeToken and TouchToken return false for an unknown id.
	RevokeToken(ctx context.Context, id string, at time.Time) (bool, error)
	TouchToken(ctx context.Context, id string, at time.Time) (bool, error)
}

// Tokens implements ports.TokenStore.
type Tokens struct{ s *Store }

var _ ports.TokenStore = Tokens{}

// Tokens returns the gateway token store.
func (s *Store) Tokens() Tokens { return Tokens{s} }

// CreateToken implements ports.TokenStore.
func (ts Tokens) CreateToken(ctx context.Context, t token.Token, admit func(held []token.Token) error) error {
	t.CreatedAt = t.CreatedAt.UTC()
	err := ts.s.engine.Write(ctx, func(tx Tx) error {
		if admit != nil {
			if err := tx.LockTokenOwner(ctx, t.Owner.UserID); err != nil {
				return err
			}
			held, err := tx.ListTokens(ctx, t.Owner.UserID)
			if err != nil {
				return err
			}
			if err := admit(held); err != nil {
				return err
			}
		}
		return tx.InsertToken(ctx, t)
	})
	if err != nil {
		return fmt.Errorf("create gateway token %s: %w", t.ID, err)
	}
	return nil
}

// TokenByHash implements ports.TokenStore.
func (ts Tokens) TokenByHash(ctx context.Context, h token.Hash) (token.Token, error) {
	var t token.Token
	err := ts.s.engine.Read(ctx, func(tx Tx) error {
		var err error
		t, err = tx.TokenByHash(ctx, h)
		return err
	})
	if err != nil {
		return token.Token{}, fmt.Errorf("find gateway token: %w", err)
	}
	return t, nil
}

// Tokens implements ports.TokenStore.
func (ts Tokens) Tokens(ctx context.Context, userID string) ([]token.Token, error) {
	var out []token.Token
	err := ts.s.engine.Read(ctx, func(tx Tx) error {
		var err error
		out, err = tx.ListTokens(ctx, userID)
		return err
	})
	if err != nil {
		return nil, fmt.Errorf("list gateway tokens: %w", err)
	}
	return out, nil
}

// RevokeToken implements ports.TokenStore.
func (ts Tokens) RevokeToken(ctx context.Context, id string, at time.Time) error {
	return ts.update(ctx, "revoke", id, at, Tx.RevokeToken)
}

// TouchToken implements ports.TokenStore.
func (ts Tokens) TouchToken(ctx context.Context, id string, at time.Time) error {
	return ts.update(ctx, "touch", id, at, Tx.TouchToken)
}

func (ts Tokens) update(ctx context.Context, verb, id string, at time.Time,
	fn func(Tx, context.Context, string, time.Time) (bool, error)) error {
	err := ts.s.engine.Write(ctx, func(tx Tx) error {
		ok, err := fn(tx, ctx, id, at.UTC())
		if err == nil && !ok {
			err = ports.ErrNotFound
		}
		return err
	})
	if err != nil {
		return fmt.Errorf("%s gateway token %s: %w", verb, id, err)
	}
	return nil
}
