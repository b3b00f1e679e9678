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
		return ports.ErrBlobHashMismatch
	}
	if len(data) > ports.MaxBlobSize {
		return ports.ErrBlobTooLarge
	}
	b.s.mu.Lock()
	defer b.s.mu.Unlock()
	if b.s.blobs == nil {
		b.s.blobs = map[string][]byte{}
	}
	b.s.blobs[id] = slices.Clone(data)
	return ctx.Err()
}

// Get implements ports.BlobStore.
func (b Blobs) Get(ctx context.Context, id string) ([]byte, error) {
	b.s.mu.Lock()
	defer b.s.mu.Unlock()
	data, ok := b.s.blobs[id]
	if !ok {
		return nil, fmt.Errorf("blob %s: %w", id, ports.ErrNotFound)
	}
	return slices.Clone(data), ctx.Err()
}

// Has implements ports.BlobStore.
func (b Blobs) Has(ctx context.Context, id string) (bool, error) {
	b.s.mu.Lock()
	defer b.s.mu.Unlock()
	_, ok := b.s.blobs[id]
	return ok, ctx.Err()
}

// Link implements ports.BlobStore; references are not kept.
func (b Blobs) Link(ctx context.Context, parentID string, childIDs ...string) error {
	for _, id := range append([]string{parentID}, childIDs...) {
		if ok, _ := b.Has(ctx, id); !ok {
			return ports.ErrNotFound
		}
	}
	return ctx.Err()
}

// Children implements ports.BlobStore; references are not kept.
func (b Blobs) Children(ctx context.Context, parentID string) ([]string, error) {
	if ok, _ := b.Has(ctx, parentID); !ok {
		return nil, ports.ErrNotFound
	}
	return []string{}, ctx.Err()
}
