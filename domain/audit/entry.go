package audit

import (
	"errors"
	"time"

	"keygate/domain/identity"
)

// Entry is one audited action.
type Entry struct {
	// Seq is assigned by the store and orders entries; 0 before storing.
	Seq int64
	At  time.Time
	// Actor is who acted, and Role the role they acted in.
	Actor identity.Identity
	Role  string
	// Action names what happened, as "noun.verb" (model.update,
	// token.revoke, settings.update).
	Action string
	// Target names the object acted on (a model id, a token id).
	Target string
	// Before and After are JSON documents with secrets masked; nil when
	// the object did not exist before, or no longer exists after.
	Before, After []byte
}

// ErrIncomplete means an entry without an actor or an action.
var ErrIncomplete = errors.New("audit entry needs an actor and an action")

// Validate reports ErrIncomplete for an entry that could not be read
// back meaningfully.
func (e Entry) Validate() error {
	if e.Actor.Validate() != nil || e.Action == "" {
		return ErrIncomplete
	}
	return nil
}
