package ports

import (
	"context"
	"time"
)

// ConversationEraser deletes conversations with everything kept of them:
// their messages, checkpoints, runs, tool rounds, context anchor and
// routing affinity, the details (request and response bytes) and kept
// prompts of their calls, and the image blobs no other conversation uses.
// The call records stay, for spend and audit figures (model, tokens,
// timings, status), without their provider error text, which may quote
// the prompt. Nothing of another conversation changes.
type ConversationEraser interface {
	// EraseConversation deletes conversation id in one transaction;
	// ErrNotFound when it does not exist (erasing twice finds nothing the
	// second time). A conversation with a run in progress is erased too:
	// the run's next write fails, as it would after any deletion.
	EraseConversation(ctx context.Context, id string) error

	// StaleConversations returns up to limit ids of conversations last
	// updated before cutoff with no run in progress, oldest first: what a
	// retention sweep erases next.
	StaleConversations(ctx context.Context, cutoff time.Time, limit int) ([]string, error)
}
