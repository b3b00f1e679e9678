package ports

import (
	"context"
	"crypto/sha256"
	"encoding/hex"
)

// MaxBlobSize is the largest blob a BlobStore accepts (16 MiB).
const MaxBlobSize = 16 << 20

// BlobID returns the id of data: its SHA-256 as lower-case hex.
func BlobID(data []byte) string {
	sum := sha256.Sum256(data)
	return hex.EncodeToString(sum[:])
}

// BlobStore is a content-addressed store: a blob's id is the SHA-256 of its
// bytes ([BlobID]), so a blob is immutable and putting it twice is harmless.
// Blobs may reference other blobs (a Cursor state blob naming its parts);
// the references make reachability computable for garbage collection.
//
// All methods return ctx.Err() (wrapped) on a cancelled context and then
// have written nothing. Methods never return nil data with a nil error.
type BlobStore interface {
	// Put stores data under id. It verifies the bytes first:
	// ErrBlobHashMismatch if they do not hash to id (or id is malformed),
	// ErrBlobTooLarge above MaxBlobSize. Putting a stored blob again is a
	// no-op.
	Put(ctx context.Context, id string, data []byte) error

	// Get returns the bytes of a blob, or ErrNotFound.
	Get(ctx context.Context, id string) ([]byte, error)

	// Has reports whether a blob is stored; a malformed id is not stored.
	Has(ctx context.Context, id string) (bool, error)

	// Link records that parent references each child. Linking again is a
	// no-op. ErrNotFound if parent or any child is not stored; then no
	// reference is recorded.
	Link(ctx context.Context, parentID string, childIDs ...string) error

	// Children returns the ids parent references, in ascending order (empty
	// when it references none). ErrNotFound if parent is not stored.
	Children(ctx context.Context, parentID string) ([]string, error)
}
