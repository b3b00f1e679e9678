package sqlite

import (
	"context"
	"time"

	"keygate/domain/access"
	"keygate/gen/sqlc/sqlitedb"
)

func (t tx) InsertOwner(ctx context.Context, kind access.Kind, id, userID string, now time.Time) error {
	err := t.q.InsertOwner(ctx, sqlitedb.InsertOwnerParams{Kind: string(kind), ID: id, UserID: userID, CreatedAt: ms(now)})
	return interpretError(ctx, err)
}

func (t tx) GetOwner(ctx context.Context, kind access.Kind, id string) (string, error) {
	owner, err := t.q.GetOwner(ctx, sqlitedb.GetOwnerParams{Kind: string(kind), ID: id})
	return owner, interpretError(ctx, err)
}

func (t tx) OwnedAmong(ctx context.Context, kind access.Kind, userID string, ids []string) ([]string, error) {
	out, err := t.q.OwnedAmong(ctx, sqlitedb.OwnedAmongParams{Kind: string(kind), UserID: userID, IdsJson: jsonList(ids)})
	return out, interpretError(ctx, err)
}
