package relstore

import (
	"context"
	"fmt"

	"keygate/domain/cursorcloud"
	"keygate/ports"
)

// cloudUsageRows are the rows of the Cursor cloud ledger.
type cloudUsageRows interface {
	// AddCloudUsage adds one row's counts to its key's row (upsert).
	AddCloudUsage(ctx context.Context, u cursorcloud.DayUsage) error
	// ListCloudUsage lists rows as ports.CloudUsageStore says, limit > 0.
	ListCloudUsage(ctx context.Context, q ports.CloudUsageQuery, limit int64) ([]cursorcloud.DayUsage, error)
}

// maxCloudUsageRows bounds a listing that asked for no limit.
const maxCloudUsageRows = 10_000

// CloudUsage implements ports.CloudUsageStore.
type CloudUsage struct{ s *Store }

var _ ports.CloudUsageStore = CloudUsage{}

// CloudUsage returns the Cursor cloud ledger.
func (s *Store) CloudUsage() CloudUsage { return CloudUsage{s} }

// AddCloudUsage implements ports.CloudUsageStore.
func (c CloudUsage) AddCloudUsage(ctx context.Context, rows []cursorcloud.DayUsage) error {
	err := c.s.engine.Write(ctx, func(tx Tx) error {
		for _, r := range rows {
			if err := tx.AddCloudUsage(ctx, r); err != nil {
				return err
			}
		}
		return nil
	})
	if err != nil {
		return fmt.Errorf("add cursor cloud usage: %w", err)
	}
	return nil
}

// ListCloudUsage implements ports.CloudUsageStore.
func (c CloudUsage) ListCloudUsage(ctx context.Context, q ports.CloudUsageQuery) ([]cursorcloud.DayUsage, error) {
	limit := int64(q.Limit)
	if limit <= 0 || limit > maxCloudUsageRows {
		limit = maxCloudUsageRows
	}
	var out []cursorcloud.DayUsage
	err := c.s.engine.Read(ctx, func(tx Tx) error {
		var err error
		out, err = tx.ListCloudUsage(ctx, q, limit)
		return err
	})
	if err != nil {
		return nil, fmt.Errorf("list cursor cloud usage: %w", err)
	}
	return out, nil
}

// CloudUsageColumns is a cursor_cloud_usage row (sqlc's CursorCloudUsage).
type CloudUsageColumns struct {
	Day, UserID, Service, Method, Decision string
	Requests, BytesUp, BytesDown           int64
}

// DayUsage maps the row.
func (r CloudUsageColumns) DayUsage() cursorcloud.DayUsage {
	return cursorcloud.DayUsage{Day: r.Day, UserID: r.UserID, Route: cursorcloud.Route{Service: r.Service, Method: r.Method},
		Decision: cursorcloud.Decision(r.Decision), Requests: r.Requests, Up: r.BytesUp, Down: r.BytesDown}
}
