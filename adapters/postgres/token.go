package postgres

import (
	"context"
	"time"

	"keygate/adapters/relstore"
	"keygate/domain/audit"
	"keygate/domain/token"
	"keygate/gen/sqlc/pgdb"
)

// LockTokenOwner takes a transaction-scoped advisory lock on the user, so
// two replicas cannot both see room for one more token.
func (t tx) LockTokenOwner(ctx context.Context, userID string) error {
	return interpretError(ctx, t.q.LockTokenOwner(ctx, userID))
}

// Gateway tokens and the audit log: relstore builds and maps the rows
// (identityrows.go), this file binds them to the generated queries.

func (t tx) InsertToken(ctx context.Context, tok token.Token) error {
	return interpretError(ctx, t.q.InsertGatewayToken(ctx, pgdb.InsertGatewayTokenParams(relstore.TokenOf[time.Time](tok))))
}

func (t tx) TokenByHash(ctx context.Context, h token.Hash) (token.Token, error) {
	row, err := t.q.GatewayTokenByHash(ctx, h[:])
	if err != nil {
		return token.Token{}, interpretError(ctx, err)
	}
	return relstore.TokenColumns[time.Time](row).Token(), nil
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
	return relstore.Pick(rows, func(r pgdb.GatewayToken) token.Token { return relstore.TokenColumns[time.Time](r).Token() }), nil
}

func (t tx) RevokeToken(ctx context.Context, id string, at time.Time) (bool, error) {
	n, err := t.q.RevokeGatewayToken(ctx, pgdb.RevokeGatewayTokenParams{ID: id, RevokedAt: at})
	return n > 0, interpretError(ctx, err)
}

func (t tx) TouchToken(ctx context.Context, id string, at time.Time) (bool, error) {
	n, err := t.q.TouchGatewayToken(ctx, pgdb.TouchGatewayTokenParams{ID: id, LastUsedAt: at})
	return n > 0, interpretError(ctx, err)
}

func (t tx) InsertAudit(ctx context.Context, e audit.Entry) (int64, error) {
	seq, err := t.q.InsertAuditEntry(ctx, pgdb.InsertAuditEntryParams(relstore.AuditEntryOf[time.Time](e)))
	return seq, interpretError(ctx, err)
}

func (t tx) ListAudit(ctx context.Context, beforeSeq int64, actorID string, limit int32) ([]audit.Entry, error) {
	rows, err := t.q.ListAuditEntries(ctx, pgdb.ListAuditEntriesParams{BeforeSeq: beforeSeq, ActorID: actorID, Lim: int64(limit)})
	if err != nil {
		return nil, interpretError(ctx, err)
	}
	return relstore.Pick(rows, func(r pgdb.AuditLog) audit.Entry { return relstore.AuditColumns[time.Time](r).Entry() }), nil
}
