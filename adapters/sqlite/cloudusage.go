package sqlite

import (
	"context"

	"keygate/adapters/relstore"
	"keygate/domain/cursorcloud"
	"keygate/gen/sqlc/sqlitedb"
	"keygate/ports"
)

func (t tx) AddCloudUsage(ctx context.Context, u cursorcloud.DayUsage) error {
	err := t.q.AddCloudUsage(ctx, sqlitedb.AddCloudUsageParams{Day: u.Day, UserID: u.UserID, Service: u.Route.Service,
		Method: u.Route.Method, Decision: string(u.Decision), Requests: u.Requests, BytesUp: u.Up, BytesDown: u.Down})
	return interpretError(ctx, err)
}

func (t tx) ListCloudUsage(ctx context.Context, q ports.CloudUsageQuery, limit int64) ([]cursorcloud.DayUsage, error) {
	rows, err := t.q.ListCloudUsage(ctx, sqlitedb.ListCloudUsageParams{UserID: q.UserID, Since: q.Since, Until: q.Until, MaxRows: limit})
	if err != nil {
		return nil, interpretError(ctx, err)
	}
	out := make([]cursorcloud.DayUsage, 0, len(rows))
	for _, r := range rows {
		out = append(out, relstore.CloudUsageColumns(r).DayUsage())
	}
	return out, nil
}
