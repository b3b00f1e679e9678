package sqlite

import (
	"context"
	"time"

	"keygate/gen/sqlc/sqlitedb"
)

func (t tx) UpsertUserGroups(ctx context.Context, userID string, groups []byte, at time.Time) error {
	err := t.q.UpsertUserGroups(ctx, sqlitedb.UpsertUserGroupsParams{UserID: userID, Groups: string(groups), SeenAt: ms(at)})
	return interpretError(ctx, err)
}

func (t tx) GetUserGroups(ctx context.Context, userID string) ([]byte, time.Time, error) {
	row, err := t.q.GetUserGroups(ctx, userID)
	return []byte(row.Groups), fromMS(row.SeenAt), interpretError(ctx, err)
}
