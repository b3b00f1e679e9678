package memories

import (
	"context"
	"fmt"
	"strings"

	"github.com/google/uuid"

	"keygate/domain/identity"
	"keygate/domain/turn"
	"keygate/ports"
)

// Bounds on what a client may store: a memory is a sentence or a short
// paragraph, and every turn of the user carries all of them.
const (
	// MaxTitle bounds a memory's title, in bytes.
	MaxTitle = 256
	// MaxKnowledge bounds a memory's text, in bytes.
	MaxKnowledge = 4 << 10
	// MaxPerUser bounds the memories one user keeps.
	MaxPerUser = 100
)

var (
	// ErrNoCaller is a request without a user on its context.
	ErrNoCaller = fmt.Errorf("memory request without a caller: %w", identity.ErrNoUser)
	// ErrInvalid is an empty or over-long memory, or one too many: the
	// caller's mistake.
	ErrInvalid = ports.ErrInvalidMemory
)

// Service stores, lists, edits and recalls the caller's memories.
type Service struct {
	store ports.MemoryStore
}

// New returns the use case on store.
func New(store ports.MemoryStore) *Service { return &Service{store: store} }

func caller(ctx context.Context) (string, error) {
	who, ok := identity.FromContext(ctx)
	if !ok || who.UserID == "" {
		return "", ErrNoCaller
	}
	return who.UserID, nil
}

func check(title, knowledge string) error {
	switch {
	case strings.TrimSpace(knowledge) == "":
		return fmt.Errorf("%w: no knowledge", ErrInvalid)
	case len(title) > MaxTitle:
		return fmt.Errorf("%w: title over %d bytes", ErrInvalid, MaxTitle)
	case len(knowledge) > MaxKnowledge:
		return fmt.Errorf("%w: knowledge over %d bytes", ErrInvalid, MaxKnowledge)
	}
	return nil
}

// Add stores a new memory of the caller and returns it. A caller with
// MaxPerUser memories is refused with ErrInvalid.
func (s *Service) Add(ctx context.Context, title, knowledge, gitOrigin string) (ports.Memory, error) {
	user, err := caller(ctx)
	if err != nil {
		return ports.Memory{}, err
	}
	if err := check(title, knowledge); err != nil {
		return ports.Memory{}, err
	}
	have, err := s.store.Memories(ctx, user, MaxPerUser)
	if err != nil {
		return ports.Memory{}, err
	}
	if len(have) >= MaxPerUser {
		return ports.Memory{}, fmt.Errorf("%w: %d memories already", ErrInvalid, MaxPerUser)
	}
	if len(gitOrigin) > MaxTitle {
		gitOrigin = ""
	}
	return s.store.AddMemory(ctx, ports.Memory{ID: uuid.NewString(), UserID: user, Title: title, Knowledge: knowledge, GitOrigin: gitOrigin})
}

// List returns the caller's memories, oldest first; limit > 0 keeps the
// first limit.
func (s *Service) List(ctx context.Context, limit int) ([]ports.Memory, error) {
	user, err := caller(ctx)
	if err != nil {
		return nil, err
	}
	return s.store.Memories(ctx, user, limit)
}

// Update replaces the title and text of the caller's memory id; another
// user's memory is ports.ErrNotFound.
func (s *Service) Update(ctx context.Context, id, title, knowledge string) error {
	user, err := caller(ctx)
	if err != nil {
		return err
	}
	if err := check(title, knowledge); err != nil {
		return err
	}
	return s.store.UpdateMemory(ctx, user, id, title, knowledge)
}

// Remove deletes the caller's memory id; another user's memory is
// ports.ErrNotFound.
func (s *Service) Remove(ctx context.Context, id string) error {
	user, err := caller(ctx)
	if err != nil {
		return err
	}
	return s.store.DeleteMemory(ctx, user, id)
}

// Recall returns the caller's memories for their turn, oldest first.
func (s *Service) Recall(ctx context.Context) (turn.Memories, error) {
	ms, err := s.List(ctx, MaxPerUser)
	if err != nil {
		return nil, err
	}
	out := make(turn.Memories, 0, len(ms))
	for _, m := range ms {
		out = append(out, turn.Memory{Title: m.Title, Knowledge: m.Knowledge})
	}
	return out, nil
}
