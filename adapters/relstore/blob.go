package relstore

import (
	"bytes"
	"context"
	"crypto/sha256"
	"encoding/hex"
	"fmt"

	"keygate/domain/conversation"
	"keygate/ports"
)

// Blobs implements ports.BlobStore. Ids are stored as the 32 raw hash bytes.
type Blobs struct{ s *Store }

var _ ports.BlobStore = Blobs{}

// Put implements ports.BlobStore.
func (b Blobs) Put(ctx context.Context, id string, data []byte) error {
	raw, err := parseBlobID(id)
	if err != nil {
		return fmt.Errorf("put blob %q: %w", id, ports.ErrBlobHashMismatch)
	}
	if len(data) > ports.MaxBlobSize {
		return fmt.Errorf("put blob %s (%d bytes): %w", id, len(data), ports.ErrBlobTooLarge)
	}
	if sum := sha256.Sum256(data); !bytes.Equal(sum[:], raw) {
		return fmt.Errorf("put blob %s: %w", id, ports.ErrBlobHashMismatch)
	}
	err = b.s.engine.Write(ctx, func(tx Tx) error { return tx.InsertBlob(ctx, raw, data, b.s.now()) })
	if err != nil {
		return fmt.Errorf("put blob %s: %w", id, err)
	}
	return nil
}

// Get implements ports.BlobStore.
func (b Blobs) Get(ctx context.Context, id string) ([]byte, error) {
	raw, err := parseBlobID(id)
	if err != nil {
		return nil, fmt.Errorf("get blob %q: %w", id, ports.ErrNotFound)
	}
	var data []byte
	err = b.s.engine.Read(ctx, func(tx Tx) error {
		data, err = tx.GetBlob(ctx, raw)
		return err
	})
	if err != nil {
		return nil, fmt.Errorf("get blob %s: %w", id, err)
	}
	if data == nil {
		data = []byte{}
	}
	return data, nil
}

// Has implements ports.BlobStore.
func (b Blobs) Has(ctx context.Context, id string) (bool, error) {
	raw, err := parseBlobID(id)
	if err != nil {
		return false, nil
	}
	var ok bool
	err = b.s.engine.Read(ctx, func(tx Tx) error {
		ok, err = tx.HasBlob(ctx, raw)
		return err
	})
	if err != nil {
		return false, fmt.Errorf("check blob %s: %w", id, err)
	}
	return ok, nil
}

// Link implements ports.BlobStore.
func (b Blobs) Link(ctx context.Context, parentID string, childIDs ...string) error {
	err := b.s.engine.Write(ctx, func(tx Tx) error {
		parent, err := storedBlob(ctx, tx, parentID)
		if err != nil {
			return err
		}
		for _, id := range childIDs {
			child, err := storedBlob(ctx, tx, id)
			if err != nil {
				return err
			}
			if err := tx.InsertBlobRef(ctx, parent, child); err != nil {
				return err
			}
		}
		return nil
	})
	if err != nil {
		return fmt.Errorf("link blob %s: %w", parentID, err)
	}
	return nil
}

// Children implements ports.BlobStore.
func (b Blobs) Children(ctx context.Context, parentID string) ([]string, error) {
	ids := []string{}
	err := b.s.engine.Read(ctx, func(tx Tx) error {
		parent, err := storedBlob(ctx, tx, parentID)
		if err != nil {
			return err
		}
		raws, err := tx.BlobChildren(ctx, parent)
		for _, r := range raws {
			ids = append(ids, hex.EncodeToString(r))
		}
		return err
	})
	if err != nil {
		return nil, fmt.Errorf("list children of blob %s: %w", parentID, err)
	}
	return ids, nil
}

// storedBlob parses id and checks the blob is stored.
func storedBlob(ctx context.Context, tx blobRows, id string) ([]byte, error) {
	raw, err := parseBlobID(id)
	if err != nil {
		return nil, fmt.Errorf("blob %q: %w", id, ports.ErrNotFound)
	}
	ok, err := tx.HasBlob(ctx, raw)
	if err != nil {
		return nil, err
	}
	if !ok {
		return nil, fmt.Errorf("blob %s: %w", id, ports.ErrNotFound)
	}
	return raw, nil
}

// parseBlobID accepts exactly the form ports.BlobID produces: 64 lower-case
// hex digits.
func parseBlobID(id string) ([]byte, error) {
	raw, err := hex.DecodeString(id)
	if err != nil || len(raw) != sha256.Size || hex.EncodeToString(raw) != id {
		return nil, fmt.Errorf("malformed blob id %q", id)
	}
	return raw, nil
}

// imageBlobs returns the blob ids a message's images name.
func imageBlobs(m conversation.Message) []string {
	var ids []string
	for _, p := range m.Parts() {
		if p.Image != nil && p.Image.BlobID != "" {
			ids = append(ids, p.Image.BlobID)
		}
	}
	if r, ok := m.ToolResult(); ok && r.Image != nil && r.Image.BlobID != "" {
		ids = append(ids, r.Image.BlobID)
	}
	return ids
}
