package sqlite

import (
	"context"
	"time"

	"keygate/gen/sqlc/sqlitedb"
)

func (t tx) InsertRevokedSession(ctx context.Context, id string, expires time.Time) error {
	err := t.q.InsertRevokedSession(ctx, sqlitedb.InsertRevokedSessionParams{ID: id, ExpiresAt: ms(expires)})
	return interpretError(ctx, err)
}

func (t tx) CountRevokedSession(ctx context.Context, id string) (int64, error) {
	n, err := t.q.CountRevokedSession(ctx, id)
	return n, interpretError(ctx, err)
}

func (t tx) DeleteRevokedSessionsBefore(ctx context.Context, cutoff time.Time) error {
	return interpretError(ctx, t.q.DeleteRevokedSessionsBefore(ctx, ms(cutoff)))
}
