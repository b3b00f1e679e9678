package runtest

import (
	"context"
	"fmt"
	"slices"

	"keygate/ports"
)

var _ ports.BlobStore = Blobs{}

// Blobs implements ports.BlobStore over a Store.
type Blobs struct{ s *Store }

// Blobs returns the store's ports.BlobStore.
func (s *Store) Blobs() Blobs { return Blobs{s} }

// Put implements ports.BlobStore.
func (b Blobs) Put(ctx context.Context, id string, data []byte) error {
	if ports.BlobID(data) != id {
		return fmt.Errorf("put blob %q: %w", id, ports.ErrBlobHashMismatch)
	}
	if len(data) > ports.MaxBlobSize {
		return fmt.Errorf("put blob %s (%d bytes): %w", id, len(data), ports.ErrBlobTooLarge)
	}
	b.s.mu.Lock()
	defer b.s.mu.Unlock()
	if err := ctx.Err(); err != nil {
		return fmt.Errorf("put blob %s: %w", id, err)
	}
	if _, ok := b.s.blobs[id]; !ok {
		b.s.blobs[id] = slices.Clone(data)
	}
	return nil
}

// Get implements ports.BlobStore.
func (b Blobs) Get(ctx context.Context, id string) ([]byte, error) {
	b.s.mu.Lock()
	defer b.s.mu.Unlock()
	if err := ctx.Err(); err != nil {
		return nil, fmt.Errorf("get blob %s: %w", id, err)
	}
	data, ok := b.s.blobs[id]
	if !ok {
		return nil, fmt.Errorf("blob %s: %w", id, ports.ErrNotFound)
	}
	return slices.Clone(data), nil
}

// Has implements ports.BlobStore.
func (b Blobs) Has(ctx context.Context, id string) (bool, error) {
	b.s.mu.Lock()
	defer b.s.mu.Unlock()
	if err := ctx.Err(); err != nil {
		return false, fmt.Errorf("check blob %s: %w", id, err)
	}
	_, ok := b.s.blobs[id]
	return ok, nil
}

// Link implements ports.BlobStore.
func (b Blobs) Link(ctx context.Context, parentID string, childIDs ...string) error {
	b.s.mu.Lock()
	defer b.s.mu.Unlock()
	if err := ctx.Err(); err != nil {
		return fmt.Errorf("link blob %s: %w", parentID, err)
	}
	for _, id := range append([]string{parentID}, childIDs...) {
		if _, ok := b.s.blobs[id]; !ok {
			return fmt.Errorf("link blob %s: blob %s: %w", parentID, id, ports.ErrNotFound)
		}
	}
	refs := b.s.children[parentID]
	if refs == nil {
		refs = map[string]bool{}
		b.s.children[parentID] = refs
	}
	for _, id := range childIDs {
		refs[id] = true
	}
	return nil
}

// Children implements ports.BlobStore.
func (b Blobs) Children(ctx context.Context, parentID string) ([]string, error) {
	b.s.mu.Lock()
	defer b.s.mu.Unlock()
	if err := ctx.Err(); err != nil {
		return nil, fmt.Errorf("list children of blob %s: %w", parentID, err)
	}
	if _, ok := b.s.blobs[parentID]; !ok {
		return nil, fmt.Errorf("blob %s: %w", parentID, ports.ErrNotFound)
	}
	ids := make([]string, 0, len(b.s.children[parentID]))
	for id := range b.s.children[parentID] {
		ids = append(ids, id)
	}
	slices.Sort(ids)
	return ids, nil
}
