package postgres

import (
	"context"
	"time"

	"keygate/gen/sqlc/pgdb"
)

func (t tx) UpsertUserGroups(ctx context.Context, userID string, groups []byte, at time.Time) error {
	err := t.q.UpsertUserGroups(ctx, pgdb.UpsertUserGroupsParams{UserID: userID, Groups: string(groups), SeenAt: at})
	return interpretError(ctx, err)
}

func (t tx) GetUserGroups(ctx context.Context, userID string) ([]byte, time.Time, error) {
	row, err := t.q.GetUserGroups(ctx, userID)
	return []byte(row.Groups), utc(row.SeenAt), interpretError(ctx, err)
}
