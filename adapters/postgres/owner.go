package postgres

import (
	"context"
	"time"

	"keygate/domain/access"
	"keygate/gen/sqlc/pgdb"
)

func (t tx) InsertOwner(ctx context.Context, kind access.Kind, id, userID string, now time.Time) error {
	err := t.q.InsertOwner(ctx, pgdb.InsertOwnerParams{Kind: string(kind), ID: id, UserID: userID, CreatedAt: now})
	return interpretError(ctx, err)
}

func (t tx) GetOwner(ctx context.Context, kind access.Kind, id string) (string, error) {
	owner, err := t.q.GetOwner(ctx, pgdb.GetOwnerParams{Kind: string(kind), ID: id})
	return owner, interpretError(ctx, err)
}

func (t tx) OwnedAmong(ctx context.Context, kind access.Kind, userID string, ids []string) ([]string, error) {
	out, err := t.q.OwnedAmong(ctx, pgdb.OwnedAmongParams{Kind: string(kind), UserID: userID, Ids: ids})
	return out, interpretError(ctx, err)
}
