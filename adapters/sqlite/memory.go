package sqlite

import (
	"context"

	"keygate/adapters/relstore"
	"keygate/gen/sqlc/sqlitedb"
	"keygate/ports"
)

// Users' memories: relstore builds and maps the rows (memory.go), this
// file binds them to the generated queries.

func (t tx) InsertMemory(ctx context.Context, m ports.Memory) error {
	return interpretError(ctx, t.q.InsertMemory(ctx, sqlitedb.InsertMemoryParams(relstore.MemoryOf[int64](m))))
}

func (t tx) ListMemories(ctx context.Context, userID string) ([]ports.Memory, error) {
	rows, err := t.q.ListMemories(ctx, userID)
	return relstore.Pick(rows, func(r sqlitedb.Memory) ports.Memory {
		return relstore.MemoryColumns[int64](r).Memory()
	}), interpretError(ctx, err)
}

func (t tx) GetMemory(ctx context.Context, userID, id string) (ports.Memory, error) {
	r, err := t.q.GetMemory(ctx, sqlitedb.GetMemoryParams{ID: id, UserID: userID})
	if err != nil {
		return ports.Memory{}, interpretError(ctx, err)
	}
	return relstore.MemoryColumns[int64](r).Memory(), nil
}

func (t tx) UpdateMemory(ctx context.Context, m ports.Memory) (bool, error) {
	n, err := t.q.UpdateMemory(ctx, sqlitedb.UpdateMemoryParams(relstore.MemoryEditOf[int64](m)))
	return n > 0, interpretError(ctx, err)
}

func (t tx) DeleteMemory(ctx context.Context, userID, id string) (bool, error) {
	n, err := t.q.DeleteMemory(ctx, sqlitedb.DeleteMemoryParams{ID: id, UserID: userID})
	return n > 0, interpretError(ctx, err)
}
