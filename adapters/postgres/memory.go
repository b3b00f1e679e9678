package postgres

import (
	"context"
	"time"

	"keygate/adapters/relstore"
	"keygate/gen/sqlc/pgdb"
	"keygate/ports"
)

// Users' memories: relstore builds and maps the rows (memory.go), this
// file binds them to the generated queries.

func (t tx) InsertMemory(ctx context.Context, m ports.Memory) error {
	return interpretError(ctx, t.q.InsertMemory(ctx, pgdb.InsertMemoryParams(relstore.MemoryOf[time.Time](m))))
}

func (t tx) ListMemories(ctx context.Context, userID string) ([]ports.Memory, error) {
	rows, err := t.q.ListMemories(ctx, userID)
	return relstore.Pick(rows, func(r pgdb.Memory) ports.Memory {
		return relstore.MemoryColumns[time.Time](r).Memory()
	}), interpretError(ctx, err)
}

func (t tx) GetMemory(ctx context.Context, userID, id string) (ports.Memory, error) {
	r, err := t.q.GetMemory(ctx, pgdb.GetMemoryParams{ID: id, UserID: userID})
	if err != nil {
		return ports.Memory{}, interpretError(ctx, err)
	}
	return relstore.MemoryColumns[time.Time](r).Memory(), nil
}

func (t tx) UpdateMemory(ctx context.Context, m ports.Memory) (bool, error) {
	n, err := t.q.UpdateMemory(ctx, pgdb.UpdateMemoryParams(relstore.MemoryEditOf[time.Time](m)))
	return n > 0, interpretError(ctx, err)
}

func (t tx) DeleteMemory(ctx context.Context, userID, id string) (bool, error) {
	n, err := t.q.DeleteMemory(ctx, pgdb.DeleteMemoryParams{ID: id, UserID: userID})
	return n > 0, interpretError(ctx, err)
}
