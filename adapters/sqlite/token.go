package sqlite

import (
	"context"
	"time"

	"keygate/adapters/relstore"
	"keygate/domain/audit"
	"keygate/domain/token"
	"keygate/gen/sqlc/sqlitedb"
)

// LockTokenOwner needs no lock: the single writer connection already
// serializes every write transaction.
func (t tx) LockTokenOwner(ctx context.Context, _ string) error { return ctx.Err() }

// Gateway tokens and the audit log: relstore builds and maps the rows
// (identityrows.go), this file binds them to the generated queries.

func (t tx) InsertToken(ctx context.Context, tok token.Token) error {
	return interpretError(ctx, t.q.InsertGatewayToken(ctx, sqlitedb.InsertGatewayTokenParams(relstore.TokenOf[int64](tok))))
}

func (t tx) TokenByHash(ctx context.Context, h token.Hash) (token.Token, error) {
	row, err := t.q.GatewayTokenByHash(ctx, h[:])
	if err != nil {
		return token.Token{}, interpretError(ctx, err)
	}
	return relstore.TokenColumns[int64](row).Token(), nil
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
	return relstore.Pick(rows, func(r sqlitedb.GatewayToken) token.Token { return relstore.TokenColumns[int64](r).Token() }), nil
}

func (t tx) RevokeToken(ctx context.Context, id string, at time.Time) (bool, error) {
	n, err := t.q.RevokeGatewayToken(ctx, sqlitedb.RevokeGatewayTokenParams{ID: id, RevokedAt: ms(at)})
	return n > 0, interpretError(ctx, err)
}

func (t tx) TouchToken(ctx context.Context, id string, at time.Time) (bool, error) {
	n, err := t.q.TouchGatewayToken(ctx, sqlitedb.TouchGatewayTokenParams{ID: id, LastUsedAt: ms(at)})
	return n > 0, interpretError(ctx, err)
}

func (t tx) InsertAudit(ctx context.Context, e audit.Entry) (int64, error) {
	seq, err := t.q.InsertAuditEntry(ctx, sqlitedb.InsertAuditEntryParams(relstore.AuditEntryOf[int64](e)))
	return seq, interpretError(ctx, err)
}

func (t tx) ListAudit(ctx context.Context, beforeSeq int64, actorID string, limit int32) ([]audit.Entry, error) {
	rows, err := t.q.ListAuditEntries(ctx, sqlitedb.ListAuditEntriesParams{BeforeSeq: beforeSeq, ActorID: actorID, Lim: int64(limit)})
	if err != nil {
		return nil, interpretError(ctx, err)
	}
	return relstore.Pick(rows, func(r sqlitedb.AuditLog) audit.Entry { return relstore.AuditColumns[int64](r).Entry() }), nil
}
