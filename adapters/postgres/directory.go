package postgres

import (
	"context"
	"time"

	"keygate/adapters/relstore"
	"keygate/gen/sqlc/pgdb"
	"keygate/ports"
)

func (t tx) InsertDirectoryEntry(ctx context.Context, r relstore.DirectoryRow) error {
	err := t.q.InsertDirectoryEntry(ctx, pgdb.InsertDirectoryEntryParams{Kind: r.Kind, ID: r.ID, Name: r.Name, NameKey: r.NameKey,
		ExternalID: r.ExternalID, Active: r.Active, Members: r.Members, Attributes: r.Attributes, CreatedAt: r.Created, UpdatedAt: r.Updated})
	return interpretError(ctx, err)
}

func (t tx) UpdateDirectoryEntry(ctx context.Context, r relstore.DirectoryRow) error {
	n, err := t.q.UpdateDirectoryEntry(ctx, pgdb.UpdateDirectoryEntryParams{Kind: r.Kind, ID: r.ID, Name: r.Name, NameKey: r.NameKey,
		ExternalID: r.ExternalID, Active: r.Active, Members: r.Members, Attributes: r.Attributes, UpdatedAt: r.Updated})
	if err != nil {
		return interpretError(ctx, err)
	}
	if n == 0 {
		return ports.ErrNotFound
	}
	return nil
}

func (t tx) GetDirectoryEntry(ctx context.Context, kind, id string) (relstore.DirectoryRow, error) {
	r, err := t.q.GetDirectoryEntry(ctx, pgdb.GetDirectoryEntryParams{Kind: kind, ID: id})
	if err != nil {
		return relstore.DirectoryRow{}, interpretError(ctx, err)
	}
	return relstore.DirectoryRow{Kind: r.Kind, ID: r.ID, Name: r.Name, ExternalID: r.ExternalID, Active: r.Active,
		Members: r.Members, Attributes: r.Attributes, Created: utc(r.CreatedAt), Updated: utc(r.UpdatedAt)}, nil
}

func (t tx) ListDirectoryEntries(ctx context.Context, kind string, limit int) ([]relstore.DirectoryRow, error) {
	rows, err := t.q.ListDirectoryEntries(ctx, pgdb.ListDirectoryEntriesParams{Kind: kind, MaxRows: int64(limit)})
	if err != nil {
		return nil, interpretError(ctx, err)
	}
	out := make([]relstore.DirectoryRow, 0, len(rows))
	for _, r := range rows {
		out = append(out, relstore.DirectoryRow{Kind: r.Kind, ID: r.ID, Name: r.Name, ExternalID: r.ExternalID, Active: r.Active,
			Members: r.Members, Attributes: r.Attributes, Created: utc(r.CreatedAt), Updated: utc(r.UpdatedAt)})
	}
	return out, nil
}

func (t tx) DeleteDirectoryEntry(ctx context.Context, kind, id string) error {
	n, err := t.q.DeleteDirectoryEntry(ctx, pgdb.DeleteDirectoryEntryParams{Kind: kind, ID: id})
	if err != nil {
		return interpretError(ctx, err)
	}
	if n == 0 {
		return ports.ErrNotFound
	}
	return nil
}

func (t tx) UpsertUserCutoff(ctx context.Context, userID string, blocked bool, at time.Time) error {
	err := t.q.UpsertUserCutoff(ctx, pgdb.UpsertUserCutoffParams{UserID: userID, Blocked: blocked, CutAt: at})
	return interpretError(ctx, err)
}

func (t tx) GetUserCutoff(ctx context.Context, userID string) (bool, time.Time, error) {
	r, err := t.q.GetUserCutoff(ctx, userID)
	if err != nil {
		return false, time.Time{}, interpretError(ctx, err)
	}
	return r.Blocked, utc(r.CutAt), nil
}
