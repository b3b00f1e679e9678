package postgres

import (
	"context"
	"time"

	"keygate/domain/identity"
	"keygate/domain/token"
	"keygate/gen/sqlc/pgdb"
)

// LockTokenOwner takes a transaction-scoped advisory lock on the user, so
// two replicas cannot both see room for one more token.
func (t tx) LockTokenOwner(ctx context.Context, userID string) error {
	return interpretError(ctx, t.q.LockTokenOwner(ctx, userID))
}

func (t tx) InsertToken(ctx context.Context, tok token.Token) error {
	err := t.q.InsertGatewayToken(ctx, pgdb.InsertGatewayTokenParams{
		ID: tok.ID, UserID: tok.Owner.UserID, UserName: tok.Owner.Name, Name: tok.Name,
		Hash: tok.Hash[:], Hint: tok.Hint, CreatedAt: tok.CreatedAt, ExpiresAt: tok.ExpiresAt,
		LastUsedAt: tok.LastUsedAt, RevokedAt: tok.RevokedAt,
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
	var rows []pgdb.GatewayToken
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
	n, err := t.q.RevokeGatewayToken(ctx, pgdb.RevokeGatewayTokenParams{ID: id, RevokedAt: at})
	return n > 0, interpretError(ctx, err)
}

func (t tx) TouchToken(ctx context.Context, id string, at time.Time) (bool, error) {
	n, err := t.q.TouchGatewayToken(ctx, pgdb.TouchGatewayTokenParams{ID: id, LastUsedAt: at})
	return n > 0, interpretError(ctx, err)
}

func tokenFromRow(r pgdb.GatewayToken) token.Token {
	t := token.Token{
		ID: r.ID, Owner: identity.Identity{UserID: r.UserID, Name: r.UserName}, Name: r.Name, Hint: r.Hint,
		CreatedAt: utc(r.CreatedAt), ExpiresAt: utc(r.ExpiresAt),
		LastUsedAt: utc(r.LastUsedAt), RevokedAt: utc(r.RevokedAt),
	}
	copy(t.Hash[:], r.Hash)
	return t
}
