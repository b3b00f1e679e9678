package ports

import (
	"context"
	"errors"
	"time"
)

// Memory is one thing a user asked Cursor's Agent to remember (Cursor's
// "memories", the AiService KnowledgeBase routes), kept by Keygate for
// that user alone.
type Memory struct {
	// ID is the store-wide id the client edits and deletes by.
	ID string
	// UserID owns the memory: it scopes every read and write.
	UserID    string
	Title     string
	Knowledge string
	// GitOrigin is the repository the memory was added in, as the client
	// said it ("" for none); kept, not used to filter.
	GitOrigin string
	// CreatedAt and UpdatedAt are set by the store.
	CreatedAt time.Time
	UpdatedAt time.Time
}

// MemoryStore keeps users' memories.
//
// Every method returns ctx.Err() (wrapped) on a cancelled context and then
// has written nothing. A memory of another user is reported exactly like a
// missing one (ErrNotFound), so ids cannot be probed.
type MemoryStore interface {
	// AddMemory stores m as new and returns it with its times. ID and
	// UserID are required (an error otherwise, nothing stored); an ID
	// already used is ErrConflict.
	AddMemory(ctx context.Context, m Memory) (Memory, error)
	// Memories returns userID's memories, oldest first (by CreatedAt, then
	// ID); an empty userID returns every user's, ordered by user first.
	// limit > 0 keeps the first limit.
	Memories(ctx context.Context, userID string, limit int) ([]Memory, error)
	// Memory returns one memory of userID, or ErrNotFound; an empty userID
	// reads it whoever owns it (for administrators).
	Memory(ctx context.Context, userID, id string) (Memory, error)
	// UpdateMemory replaces the title and knowledge of userID's memory id
	// and stamps UpdatedAt, or returns ErrNotFound.
	UpdateMemory(ctx context.Context, userID, id, title, knowledge string) error
	// DeleteMemory removes userID's memory id, or returns ErrNotFound.
	DeleteMemory(ctx context.Context, userID, id string) error
}

// ErrInvalidMemory is a memory refused as the caller's mistake (empty,
// over a bound, one too many); what serves memories to clients wraps it,
// so that adapters answer it as such.
var ErrInvalidMemory = errors.New("invalid memory")
