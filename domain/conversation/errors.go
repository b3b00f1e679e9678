package conversation

import (
	"errors"
	"fmt"
)

// Sentinel errors of the conversation model. Match them with errors.Is.
var (
	// ErrInvalidMessage marks a message that breaks a construction rule:
	// missing id, role and content that do not fit, invalid UTF-8, malformed
	// tool-call arguments.
	ErrInvalidMessage = errors.New("invalid message")
	// ErrMessageConflict marks an attempt to store a message under an id (or
	// runtime event id) that already holds different content. Messages are
	// immutable; a changed input must get a new id.
	ErrMessageConflict = errors.New("message conflict")
	// ErrStaleHead marks a write whose expected head is no longer the
	// conversation's head: another writer moved it first.
	ErrStaleHead = errors.New("stale head")
	// ErrInvalidCheckpoint marks a checkpoint or chain whose header,
	// parent links, lengths or digest do not agree.
	ErrInvalidCheckpoint = errors.New("invalid checkpoint")
	// ErrNonCanonical marks an encoded message whose bytes are not the
	// canonical encoding of the message they decode to.
	ErrNonCanonical = errors.New("non-canonical message encoding")
)

// MessageConflictError says which stored message a new one collides with.
// It matches ErrMessageConflict.
type MessageConflictError struct {
	// ID is the id of the message being written.
	ID string
	// StoredID is the id of the stored message it collides with; it differs
	// from ID when the collision is on the runtime event id.
	StoredID string
	// RuntimeEventID is set when the collision is on the runtime event id.
	RuntimeEventID string
}

func (e *MessageConflictError) Error() string {
	if e.RuntimeEventID != "" {
		return fmt.Sprintf("message conflict: %q reuses runtime event %q of %q", e.ID, e.RuntimeEventID, e.StoredID)
	}
	return fmt.Sprintf("message conflict: %q is stored with other content", e.ID)
}

// Is makes errors.Is(err, ErrMessageConflict) hold.
func (e *MessageConflictError) Is(target error) bool { return target == ErrMessageConflict }

func invalidf(format string, args ...any) error {
	return fmt.Errorf("%w: %s", ErrInvalidMessage, fmt.Sprintf(format, args...))
}
