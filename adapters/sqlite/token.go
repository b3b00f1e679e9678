package sqlite

import (
	"context"
	"time"

	"keygate/domain/identity"
	"keygate/domain/token"
	"keygate/gen/sqlc/sqlitedb"
)

// LockTokenOwner needs no lock: the single writer connection already
// serializes every write transaction.
func (t tx) LockTokenOwner(ctx context.Context, _ string) error { return ctx.Err() }

func (t tx) InsertToken(ctx context.Context, tok token.Token) error {
	err := t.q.InsertGatewayToken(ctx, sqlitedb.InsertGatewayTokenParams{
		ID: tok.ID, UserID: tok.Owner.UserID, UserName: tok.Owner.Name, Name: tok.Name,
		Hash: tok.Hash[:], Hint: tok.Hint, CreatedAt: ms(tok.CreatedAt), ExpiresAt: ms(tok.ExpiresAt),
		LastUsedAt: ms(tok.LastUsedAt), RevokedAt: ms(tok.RevokedAt),
	})
	return interpretError(ctx, err)
}

func (t tx) TokenByHash(ctx context.Context, h token.Hash) (token.Token, error) {
	row, err := t.q.GatewayTokenByHash(ctx, h[:])
	if err != nil {
		return token.Token{}, interpretError(ctx, err)
	}
	return tokenFromRow(row), nil
}

func (t tx) ListTokens(ctx context.Context, userID string) ([]token.Token, error) {
	var rows []sqlitedb.GatewayToken
	var err error
	if userID == "" {
		rows, err = t.q.AllGatewayTokens(ctx)
	} else {
		rows, err = t.q.GatewayTokensOfUser(ctx, userID)
	}
	if err != nil {
		return nil, interpretError(ctx, err)
	}
	out := make([]token.Token, len(rows))
	for i, r := range rows {
		out[i] = tokenFromRow(r)
	}
	return out, nil
}

func (t tx) RevokeToken(ctx context.Context, id string, at time.Time) (bool, error) {
	n, err := t.q.RevokeGatewayToken(ctx, sqlitedb.RevokeGatewayTokenParams{ID: id, RevokedAt: ms(at)})
	return n > 0, interpretError(ctx, err)
}

func (t tx) TouchToken(ctx context.Context, id string, at time.Time) (bool, error) {
	n, err := t.q.TouchGatewayToken(ctx, sqlitedb.TouchGatewayTokenParams{ID: id, LastUsedAt: ms(at)})
	return n > 0, interpretError(ctx, err)
}

func tokenFromRow(r sqlitedb.GatewayToken) token.Token {
	t := token.Token{
		ID: r.ID, Owner: identity.Identity{UserID: r.UserID, Name: r.UserName}, Name: r.Name, Hint: r.Hint,
		CreatedAt: fromMS(r.CreatedAt), ExpiresAt: fromMS(r.ExpiresAt),
		LastUsedAt: fromMS(r.LastUsedAt), RevokedAt: fromMS(r.RevokedAt),
	}
	copy(t.Hash[:], r.Hash)
	return t
}
