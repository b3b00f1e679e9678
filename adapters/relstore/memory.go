package relstore

import (
	"context"
	"errors"
	"fmt"
	"time"

	"keygate/ports"
)

// Memories implements ports.MemoryStore: every row names its user, and
// every query but the administrators' reads names the user too.
type Memories struct{ s *Store }

var _ ports.MemoryStore = Memories{}

// errMemoryKey: AddMemory needs the memory's id and user; a mistake of the
// caller, not of the store.
var errMemoryKey = errors.New("a memory needs an id and a user")

type memoryRows interface {
	InsertMemory(ctx context.Context, m ports.Memory) error
	// ListMemories returns userID's memories ("" every user's) by user,
	// then CreatedAt, then ID.
	ListMemories(ctx context.Context, userID string) ([]ports.Memory, error)
	// GetMemory returns userID's memory id ("" whoever owns it), or
	// ports.ErrNotFound.
	GetMemory(ctx context.Context, userID, id string) (ports.Memory, error)
	// UpdateMemory and DeleteMemory report whether userID's memory id was
	// there.
	UpdateMemory(ctx context.Context, m ports.Memory) (bool, error)
	DeleteMemory(ctx context.Context, userID, id string) (bool, error)
}

// AddMemory implements ports.MemoryStore.
func (st Memories) AddMemory(ctx context.Context, m ports.Memory) (ports.Memory, error) {
	if m.ID == "" || m.UserID == "" {
		return ports.Memory{}, fmt.Errorf("add memory: %w", errMemoryKey)
	}
	// Both engines keep milliseconds: the memory returned is the one read back.
	m.CreatedAt = st.s.now().UTC().Truncate(time.Millisecond)
	m.UpdatedAt = m.CreatedAt
	if err := st.s.engine.Write(ctx, func(tx Tx) error { return tx.InsertMemory(ctx, m) }); err != nil {
		return ports.Memory{}, fmt.Errorf("add memory %q: %w", m.ID, err)
	}
	return m, nil
}

// Memories implements ports.MemoryStore.
func (st Memories) Memories(ctx context.Context, userID string, limit int) ([]ports.Memory, error) {
	var out []ports.Memory
	err := st.s.engine.Read(ctx, func(tx Tx) error {
		var err error
		out, err = tx.ListMemories(ctx, userID)
		return err
	})
	if err != nil {
		return nil, fmt.Errorf("list memories: %w", err)
	}
	if limit > 0 && len(out) > limit {
		out = out[:limit]
	}
	return out, nil
}

// Memory implements ports.MemoryStore.
func (st Memories) Memory(ctx context.Context, userID, id string) (ports.Memory, error) {
	var m ports.Memory
	err := st.s.engine.Read(ctx, func(tx Tx) error {
		var err error
		m, err = tx.GetMemory(ctx, userID, id)
		return err
	})
	if err != nil {
		return ports.Memory{}, fmt.Errorf("read memory %q: %w", id, err)
	}
	return m, nil
}

// UpdateMemory implements ports.MemoryStore.
func (st Memories) UpdateMemory(ctx context.Context, userID, id, title, knowledge string) error {
	m := ports.Memory{ID: id, UserID: userID, Title: title, Knowledge: knowledge, UpdatedAt: st.s.now().UTC().Truncate(time.Millisecond)}
	err := st.s.engine.Write(ctx, func(tx Tx) error {
		ok, err := tx.UpdateMemory(ctx, m)
		if err == nil && !ok {
			err = ports.ErrNotFound
		}
		return err
	})
	if err != nil {
		return fmt.Errorf("update memory %q: %w", id, err)
	}
	return nil
}

// DeleteMemory implements ports.MemoryStore.
func (st Memories) DeleteMemory(ctx context.Context, userID, id string) error {
	err := st.s.engine.Write(ctx, func(tx Tx) error {
		ok, err := tx.DeleteMemory(ctx, userID, id)
		if err == nil && !ok {
			err = ports.ErrNotFound
		}
		return err
	})
	if err != nil {
		return fmt.Errorf("delete memory %q: %w", id, err)
	}
	return nil
}

// MemoryColumns is a memories row (sqlc's Memory and InsertMemoryParams),
// T the engine's [Stamp].
type MemoryColumns[T Stamp] struct {
	ID        string
	UserID    string
	Title     string
	Knowledge string
	GitOrigin string
	CreatedAt T
	UpdatedAt T
}

// MemoryOf is how m is stored.
func MemoryOf[T Stamp](m ports.Memory) MemoryColumns[T] {
	return MemoryColumns[T]{ID: m.ID, UserID: m.UserID, Title: m.Title, Knowledge: m.Knowledge, GitOrigin: m.GitOrigin,
		CreatedAt: StampOf[T](m.CreatedAt), UpdatedAt: StampOf[T](m.UpdatedAt)}
}

// Memory maps the row.
func (r MemoryColumns[T]) Memory() ports.Memory {
	return ports.Memory{ID: r.ID, UserID: r.UserID, Title: r.Title, Knowledge: r.Knowledge, GitOrigin: r.GitOrigin,
		CreatedAt: TimeOf(r.CreatedAt), UpdatedAt: TimeOf(r.UpdatedAt)}
}

// MemoryEditArgs are the arguments of UpdateMemory (sqlc's
// UpdateMemoryParams).
type MemoryEditArgs[T Stamp] struct {
	Title     string
	Knowledge string
	UpdatedAt T
	ID        string
	UserID    string
}

// MemoryEditOf is the edit m carries (its ID, UserID, Title, Knowledge and
// UpdatedAt).
func MemoryEditOf[T Stamp](m ports.Memory) MemoryEditArgs[T] {
	return MemoryEditArgs[T]{Title: m.Title, Knowledge: m.Knowledge, UpdatedAt: StampOf[T](m.UpdatedAt), ID: m.ID, UserID: m.UserID}
}
