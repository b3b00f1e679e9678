package sqlite

import (
	"context"

	"keygate/domain/audit"
	"keygate/domain/identity"
	"keygate/gen/sqlc/sqlitedb"
)

func (t tx) InsertAudit(ctx context.Context, e audit.Entry) (int64, error) {
	seq, err := t.q.InsertAuditEntry(ctx, sqlitedb.InsertAuditEntryParams{
		At: ms(e.At), ActorID: e.Actor.UserID, ActorName: e.Actor.Name, Role: e.Role,
		Action: e.Action, Target: e.Target, BeforeDoc: e.Before, AfterDoc: e.After,
	})
	return seq, interpretError(ctx, err)
}

func (t tx) ListAudit(ctx context.Context, beforeSeq int64, actorID string, limit int32) ([]audit.Entry, error) {
	rows, err := t.q.ListAuditEntries(ctx, sqlitedb.ListAuditEntriesParams{BeforeSeq: beforeSeq, ActorID: actorID, Lim: int64(limit)})
	if err != nil {
		return nil, interpretError(ctx, err)
	}
	out := make([]audit.Entry, len(rows))
	for i, r := range rows {
		out[i] = audit.Entry{
			Seq: r.Seq, At: fromMS(r.At), Actor: identity.Identity{UserID: r.ActorID, Name: r.ActorName},
			Role: r.Role, Action: r.Action, Target: r.Target, Before: r.BeforeDoc, After: r.AfterDoc,
		}
	}
	return out, nil
}
