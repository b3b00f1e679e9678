package ports

import "context"

// InputAnchorStore remembers, per conversation, the checkpoint a logical user
// input was first submitted on. Editing that input later re-bases on the
// anchored checkpoint, discarding the active suffix.
//
// Both methods return ctx.Err() (wrapped) on a cancelled context and then
// have written nothing.
type InputAnchorStore interface {
	// Anchor records checkpointID as the base of inputID unless the input is
	// anchored already; the first anchor wins. It returns the anchored
	// checkpoint id (the stored one when it existed). ErrNotFound if the
	// conversation or the checkpoint does not exist.
	Anchor(ctx context.Context, conversationID, inputID, checkpointID string) (string, error)

	// AnchorOf returns the checkpoint id anchored for inputID, or ErrNotFound.
	AnchorOf(ctx context.Context, conversationID, inputID string) (string, error)
}
