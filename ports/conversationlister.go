package ports

import (
	"context"
	"time"

	"keygate/domain/conversation"
)

// ConversationLister browses stored conversations for the console.
//
// All methods return ctx.Err() (wrapped) on a cancelled context.
type ConversationLister interface {
	// Conversations returns up to limit conversations ordered by UpdatedAt
	// descending, then ID descending, starting after the given one (nil
	// for the first page).
	Conversations(ctx context.Context, after *ConversationSummary, limit int) ([]ConversationSummary, error)

	// Checkpoints returns every checkpoint of a conversation, root first
	// and each parent before its children, or ErrNotFound for an unknown
	// conversation.
	Checkpoints(ctx context.Context, conversationID string) ([]StoredCheckpoint, error)
}

// ConversationSummary is one row of a conversation list.
type ConversationSummary struct {
	ID               string
	HeadCheckpointID string
	CreatedAt        time.Time
	UpdatedAt        time.Time
	// Title is the conversation's first user-visible turn as
	// conversation.Title makes it; empty when it has none.
	Title string
	// UserID owns the conversation; empty when no one claimed it.
	UserID string
	// Model is what the conversation's latest provider call asked for:
	// the model or alias the client picked when the call was routed, else
	// the upstream model id; empty before any call.
	Model string
	// Turns counts the conversation's user-visible turns (messages of a
	// client's input), every branch included.
	Turns int
}

// MaxTitle bounds a conversation title, in characters.
const MaxTitle = conversation.MaxTitle

// StoredCheckpoint is a checkpoint with the time it was stored.
type StoredCheckpoint struct {
	conversation.CheckpointRecord
	CreatedAt time.Time
}
