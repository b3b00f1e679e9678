package postgres

import (
	"context"
	"time"

	"keygate/gen/sqlc/pgdb"
)

func (t tx) InsertRevokedSession(ctx context.Context, id string, expires time.Time) error {
	err := t.q.InsertRevokedSession(ctx, pgdb.InsertRevokedSessionParams{ID: id, ExpiresAt: expires})
	return interpretError(ctx, err)
}

func (t tx) CountRevokedSession(ctx context.Context, id string) (int64, error) {
	n, err := t.q.CountRevokedSession(ctx, id)
	return n, interpretError(ctx, err)
}

func (t tx) DeleteRevokedSessionsBefore(ctx context.Context, cutoff time.Time) error {
	return interpretError(ctx, t.q.DeleteRevokedSessionsBefore(ctx, cutoff))
}
