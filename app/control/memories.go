package control

import (
	"context"
	"fmt"

	"keygate/domain/access"
	"keygate/ports"
)

// MaxMemoriesListed bounds one list of memories: every user's at most a
// hundred (app/memories.MaxPerUser), for a few hundred users.
const MaxMemoriesListed = 20000

// Memories is the console's view of the memories users keep in Cursor:
// a member lists and deletes their own, an administrator everyone's.
// Another user's memory is ports.ErrNotFound to a member, exactly like a
// missing one.
type Memories struct {
	store ports.MemoryStore
}

// NewMemories returns the console's memories use case.
func NewMemories(store ports.MemoryStore) *Memories { return &Memories{store: store} }

// caller is the principal on ctx; a request without one is refused (the
// composition root's guard puts one on every request, a laptop's too).
func caller(ctx context.Context) (access.Principal, error) {
	p, ok := access.FromContext(ctx)
	if !ok || (!p.IsAdmin() && p.UserID == "") {
		return access.Principal{}, access.ErrDenied
	}
	return p, nil
}

// List returns memories oldest first: the member's own (userID is
// ignored), or for an administrator every user's, or userID's when set.
func (m *Memories) List(ctx context.Context, userID string) ([]ports.Memory, error) {
	p, err := caller(ctx)
	if err != nil {
		return nil, fmt.Errorf("list memories: %w", err)
	}
	if !p.IsAdmin() {
		userID = p.UserID
	}
	if err := checkText("user id", userID, MaxDisplayName); err != nil {
		return nil, err
	}
	return m.store.Memories(ctx, userID, MaxMemoriesListed)
}

// Delete removes memory id: a member's own, or any for an administrator.
func (m *Memories) Delete(ctx context.Context, id string) error {
	p, err := caller(ctx)
	if err != nil {
		return fmt.Errorf("delete memory: %w", err)
	}
	owner := p.UserID
	if p.IsAdmin() {
		mem, err := m.store.Memory(ctx, "", id)
		if err != nil {
			return err
		}
		owner = mem.UserID
	}
	return m.store.DeleteMemory(ctx, owner, id)
}
