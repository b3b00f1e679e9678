package ports

import (
	"context"

	"keygate/domain/conversation"
)

// ConversationStore persists conversations as the conversation package
// defines them: immutable messages stored once, checkpoints stored as a
// header plus the ids they append to their parent, and a head per
// conversation. Every write follows [conversation.Plan.Decide]; the store
// only gathers the facts and executes the decision in one transaction.
//
// All methods return ctx.Err() (wrapped) when ctx is cancelled before they
// commit, and then have written nothing.
type ConversationStore interface {
	// Open returns the head of the conversation, first creating the
	// conversation with its empty root as head if it does not exist yet.
	// Concurrent Opens of a new conversation create it once.
	Open(ctx context.Context, conversationID string) (conversation.Checkpoint, error)

	// Head returns the conversation's current head, or ErrNotFound.
	Head(ctx context.Context, conversationID string) (conversation.Checkpoint, error)

	// Load returns a checkpoint and its full message list, oldest first,
	// verified by [conversation.Materialize] (links, lengths, digests). It
	// returns ErrNotFound for an unknown checkpoint id. Loading reads the
	// parent chain in one query; its cost grows with the list, not with the
	// number of checkpoints stored.
	Load(ctx context.Context, checkpointID string) (conversation.Checkpoint, []conversation.Message, error)

	// Apply plans and executes one change. On success it returns the
	// decision that was applied (Unchanged, MoveHead or Create) with the
	// resulting checkpoint, which is then the head (Unchanged after a late
	// retry leaves a newer head in place). Errors:
	//   - ErrNotFound if the conversation or the change's base is unknown;
	//   - conversation.ErrStaleHead if the head is not the expected one and
	//     the target state is not stored yet;
	//   - *conversation.MessageConflictError if a message id or runtime
	//     event id is stored with other content;
	//   - ErrNotOwner if w.RunID is set and that run is not the running,
	//     active run of the conversation;
	//   - ErrNotFound if a message names an image blob that is not stored.
	// Concurrent retries of the same change store it once. A successful
	// Create with w.RunID set also moves that run's head.
	Apply(ctx context.Context, w Write) (conversation.Decision, error)
}

// Write is one change to a conversation, optionally on behalf of a run.
type Write struct {
	Change conversation.Change
	// RunID, when set, makes the write conditional on the run owning the
	// conversation; empty for writes outside a run (imports, specs).
	RunID string
}
