package sqlite

import (
	"context"
	"time"

	"keygate/adapters/relstore"
	"keygate/gen/sqlc/sqlitedb"
	"keygate/ports"
)

func b2i(b bool) int64 {
	if b {
		return 1
	}
	return 0
}

func (t tx) InsertDirectoryEntry(ctx context.Context, r relstore.DirectoryRow) error {
	err := t.q.InsertDirectoryEntry(ctx, sqlitedb.InsertDirectoryEntryParams{Kind: r.Kind, ID: r.ID, Name: r.Name, NameKey: r.NameKey,
		ExternalID: r.ExternalID, Active: b2i(r.Active), Members: r.Members, Attributes: r.Attributes, CreatedAt: ms(r.Created), UpdatedAt: ms(r.Updated)})
	return interpretError(ctx, err)
}

func (t tx) UpdateDirectoryEntry(ctx context.Context, r relstore.DirectoryRow) error {
	n, err := t.q.UpdateDirectoryEntry(ctx, sqlitedb.UpdateDirectoryEntryParams{Kind: r.Kind, ID: r.ID, Name: r.Name, NameKey: r.NameKey,
		ExternalID: r.ExternalID, Active: b2i(r.Active), Members: r.Members, Attributes: r.Attributes, UpdatedAt: ms(r.Updated)})
	if err != nil {
		return interpretError(ctx, err)
	}
	if n == 0 {
		return ports.ErrNotFound
	}
	return nil
}

func (t tx) GetDirectoryEntry(ctx context.Context, kind, id string) (relstore.DirectoryRow, error) {
	r, err := t.q.GetDirectoryEntry(ctx, sqlitedb.GetDirectoryEntryParams{Kind: kind, ID: id})
	if err != nil {
		return relstore.DirectoryRow{}, interpretError(ctx, err)
	}
	return relstore.DirectoryRow{Kind: r.Kind, ID: r.ID, Name: r.Name, ExternalID: r.ExternalID, Active: r.Active != 0,
		Members: r.Members, Attributes: r.Attributes, Created: fromMS(r.CreatedAt), Updated: fromMS(r.UpdatedAt)}, nil
}

func (t tx) ListDirectoryEntries(ctx context.Context, kind string, limit int) ([]relstore.DirectoryRow, error) {
	rows, err := t.q.ListDirectoryEntries(ctx, sqlitedb.ListDirectoryEntriesParams{Kind: kind, MaxRows: int64(limit)})
	if err != nil {
		return nil, interpretError(ctx, err)
	}
	out := make([]relstore.DirectoryRow, 0, len(rows))
	for _, r := range rows {
		out = append(out, relstore.DirectoryRow{Kind: r.Kind, ID: r.ID, Name: r.Name, ExternalID: r.ExternalID, Active: r.Active != 0,
			Members: r.Members, Attributes: r.Attributes, Created: fromMS(r.CreatedAt), Updated: fromMS(r.UpdatedAt)})
	}
	return out, nil
}

func (t tx) DeleteDirectoryEntry(ctx context.Context, kind, id string) error {
	n, err := t.q.DeleteDirectoryEntry(ctx, sqlitedb.DeleteDirectoryEntryParams{Kind: kind, ID: id})
	if err != nil {
		return interpretError(ctx, err)
	}
	if n == 0 {
		return ports.ErrNotFound
	}
	return nil
}

func (t tx) UpsertUserCutoff(ctx context.Context, userID string, blocked bool, at time.Time) error {
	err := t.q.UpsertUserCutoff(ctx, sqlitedb.UpsertUserCutoffParams{UserID: userID, Blocked: b2i(blocked), CutAt: ms(at)})
	return interpretError(ctx, err)
}

func (t tx) GetUserCutoff(ctx context.Context, userID string) (bool, time.Time, error) {
	r, err := t.q.GetUserCutoff(ctx, userID)
	if err != nil {
		return false, time.Time{}, interpretError(ctx, err)
	}
	return r.Blocked != 0, fromMS(r.CutAt), nil
}
