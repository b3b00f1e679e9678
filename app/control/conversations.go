package control

import (
	"context"
	"fmt"

	"keygate/domain/conversation"
	"keygate/ports"
)

// Conversations browses stored conversations and their branches.
type Conversations struct {
	lister ports.ConversationLister
	store  ports.ConversationStore
}

// NewConversations returns the conversation use cases.
func NewConversations(lister ports.ConversationLister, store ports.ConversationStore) *Conversations {
	return &Conversations{lister: lister, store: store}
}

// ConversationPage is one page of conversations; Next is nil on the last.
type ConversationPage struct {
	Conversations []ports.ConversationSummary
	Next          *ports.ConversationSummary
}

// List returns conversations, most recently updated first; limit is
// clamped to 1..500 (50 when unset).
func (c *Conversations) List(ctx context.Context, after *ports.ConversationSummary, limit int) (ConversationPage, error) {
	switch {
	case limit <= 0:
		limit = 50
	case limit > 500:
		limit = 500
	}
	rows, err := c.lister.Conversations(ctx, after, limit+1)
	if err != nil {
		return ConversationPage{}, fmt.Errorf("list conversations: %w", err)
	}
	page := ConversationPage{Conversations: rows}
	if len(rows) > limit {
		page.Conversations = rows[:limit]
		last := rows[limit-1]
		page.Next = &last
	}
	return page, nil
}

// BranchTree is every checkpoint of a conversation and its head.
type BranchTree struct {
	Checkpoints []ports.StoredCheckpoint
	HeadID      string
}

// Tree returns the branch tree of a conversation, or ErrNotFound.
func (c *Conversations) Tree(ctx context.Context, conversationID string) (BranchTree, error) {
	head, err := c.store.Head(ctx, conversationID)
	if err != nil {
		return BranchTree{}, fmt.Errorf("head of conversation %s: %w", conversationID, err)
	}
	cps, err := c.lister.Checkpoints(ctx, conversationID)
	if err != nil {
		return BranchTree{}, fmt.Errorf("checkpoints of conversation %s: %w", conversationID, err)
	}
	return BranchTree{Checkpoints: cps, HeadID: head.ID()}, nil
}

// Messages returns the messages of a checkpoint, oldest first.
func (c *Conversations) Messages(ctx context.Context, checkpointID string) ([]conversation.Message, error) {
	_, msgs, err := c.store.Load(ctx, checkpointID)
	if err != nil {
		return nil, fmt.Errorf("load checkpoint %s: %w", checkpointID, err)
	}
	return msgs, nil
}
