package ports

import (
	"context"

	"keygate/domain/compaction"
)

// ContextAnchorStore keeps the last authoritative context size of each
// conversation (compaction.Anchor): the provider-reported context input of
// the latest call and how many projected messages it sent. The anchor
// belongs to the conversation, not to a model or a run, so the estimate
// before the next call survives a model switch and a new run
// (docs/engine.md, "Context anchors").
//
// Both methods return ctx.Err() (wrapped) on a cancelled context and then
// have written nothing.
type ContextAnchorStore interface {
	// ContextAnchor returns the conversation's anchor, or ErrNotFound when
	// none was recorded or it was reset.
	ContextAnchor(ctx context.Context, conversationID string) (compaction.Anchor, error)

	// PutContextAnchor replaces the conversation's anchor. A zero anchor
	// (no tokens, no messages) resets it, so ContextAnchor then returns
	// ErrNotFound. Concurrent puts leave one of the values.
	PutContextAnchor(ctx context.Context, conversationID string, a compaction.Anchor) error
}
