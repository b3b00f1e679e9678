package postgres

import (
	"context"
	"time"

	"keygate/gen/sqlc/pgdb"
)

func (t tx) InsertBlob(ctx context.Context, id, data []byte, now time.Time) error {
	err := t.q.InsertBlob(ctx, pgdb.InsertBlobParams{ID: id, Data: data, Size: int64(len(data)), CreatedAt: now})
	return interpretError(ctx, err)
}

func (t tx) GetBlob(ctx context.Context, id []byte) ([]byte, error) {
	data, err := t.q.GetBlob(ctx, id)
	return data, interpretError(ctx, err)
}

func (t tx) HasBlob(ctx context.Context, id []byte) (bool, error) {
	n, err := t.q.HasBlob(ctx, id)
	return n > 0, interpretError(ctx, err)
}

func (t tx) InsertBlobRef(ctx context.Context, parent, child []byte) error {
	return interpretError(ctx, t.q.InsertBlobRef(ctx, pgdb.InsertBlobRefParams{ParentID: parent, ChildID: child}))
}

func (t tx) BlobChildren(ctx context.Context, parent []byte) ([][]byte, error) {
	ids, err := t.q.BlobChildren(ctx, parent)
	return ids, interpretError(ctx, err)
}

func (t tx) GetSetting(ctx context.Context, name string) ([]byte, error) {
	v, err := t.q.GetSetting(ctx, name)
	return []byte(v), interpretError(ctx, err)
}

func (t tx) PutSetting(ctx context.Context, name string, value []byte, now time.Time) error {
	err := t.q.PutSetting(ctx, pgdb.PutSettingParams{Name: name, Value: string(value), UpdatedAt: now})
	return interpretError(ctx, err)
}

func (t tx) DeleteSetting(ctx context.Context, name string) (bool, error) {
	n, err := t.q.DeleteSetting(ctx, name)
	return n > 0, interpretError(ctx, err)
}
