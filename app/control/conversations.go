package control

import (
	"context"
	"errors"
	"fmt"
	"strings"

	"keygate/domain/conversation"
	"keygate/ports"
)

// Conversations browses stored conversations and their branches.
type Conversations struct {
	lister ports.ConversationLister
	store  ports.ConversationStore
	names  func(ctx context.Context) (map[string]string, error)
	eraser ports.ConversationEraser
	audit  func(ctx context.Context, conversationID string) error
}

// EraseWith lets Delete erase conversations through e; audit records each
// erasure (before it happens, so an erasure the log cannot record does not
// happen). Without it Delete answers ErrNoEraser.
func (c *Conversations) EraseWith(e ports.ConversationEraser, audit func(ctx context.Context, conversationID string) error) {
	c.eraser, c.audit = e, audit
}

// ErrNoEraser means conversations were built without an eraser.
var ErrNoEraser = errors.New("this store cannot erase conversations")

// Delete erases a conversation the caller may see (the store is scoped to
// the caller: another member's is ErrNotFound).
func (c *Conversations) Delete(ctx context.Context, conversationID string) error {
	if c.eraser == nil {
		return ErrNoEraser
	}
	if _, err := c.store.Head(ctx, conversationID); err != nil {
		return fmt.Errorf("head of conversation %s: %w", conversationID, err)
	}
	if c.audit != nil {
		if err := c.audit(ctx, conversationID); err != nil {
			return fmt.Errorf("audit deletion of conversation %s: %w", conversationID, err)
		}
	}
	return c.eraser.EraseConversation(ctx, conversationID)
}

// NameModelsWith names the models and aliases of conversation rows for
// people (and for search): names returns display names by picker id.
func (c *Conversations) NameModelsWith(names func(ctx context.Context) (map[string]string, error)) {
	c.names = names
}

// MaxSearchScan bounds the conversations one search request reads; the
// page it returns then ends where the scan stopped, so the next request
// goes on from there.
const MaxSearchScan = 2000

// ConversationRow is a listed conversation with its model's name.
type ConversationRow struct {
	ports.ConversationSummary
	// ModelName is the display name of Model, or Model itself when it
	// names no configured model or alias.
	ModelName string
}

// NewConversations returns the conversation use cases.
func NewConversations(lister ports.ConversationLister, store ports.ConversationStore) *Conversations {
	return &Conversations{lister: lister, store: store}
}

// ConversationPage is one page of conversations; Next is nil on the last.
type ConversationPage struct {
	Conversations []ConversationRow
	Next          *ports.ConversationSummary
}

// List returns conversations, most recently updated first; limit is
// clamped to 1..500 (50 when unset).
func (c *Conversations) List(ctx context.Context, after *ports.ConversationSummary, limit int) (ConversationPage, error) {
	return c.Search(ctx, "", after, limit)
}

// Search returns the conversations whose title, user, model (id or name)
// or id contains query, case-insensitively, most recently updated first;
// an empty query matches every conversation. It reads at most
// MaxSearchScan conversations per call.
func (c *Conversations) Search(ctx context.Context, query string, after *ports.ConversationSummary, limit int) (ConversationPage, error) {
	switch {
	case limit <= 0:
		limit = 50
	case limit > 500:
		limit = 500
	}
	query = strings.ToLower(strings.TrimSpace(query))
	if err := checkText("search", query, MaxDisplayName); err != nil {
		return ConversationPage{}, err
	}
	names := map[string]string{}
	if c.names != nil {
		var err error
		if names, err = c.names(ctx); err != nil {
			return ConversationPage{}, fmt.Errorf("name models: %w", err)
		}
	}
	var page ConversationPage
	for scanned := 0; ; {
		rows, err := c.lister.Conversations(ctx, after, limit+1)
		if err != nil {
			return ConversationPage{}, fmt.Errorf("list conversations: %w", err)
		}
		for i, r := range rows {
			if i == limit {
				break
			}
			scanned++
			after = &rows[i]
			row := ConversationRow{ConversationSummary: r, ModelName: r.Model}
			if n, ok := names[r.Model]; ok {
				row.ModelName = n
			}
			if query != "" && !matches(row, query) {
				continue
			}
			page.Conversations = append(page.Conversations, row)
			if len(page.Conversations) == limit {
				if i+1 < len(rows) {
					last := rows[i]
					page.Next = &last
				}
				return page, nil
			}
		}
		switch {
		case len(rows) <= limit:
			return page, nil
		case scanned >= MaxSearchScan:
			last := *after
			page.Next = &last
			return page, nil
		}
	}
}

// matches reports whether a row holds query (lower case) anywhere shown.
func matches(r ConversationRow, query string) bool {
	for _, f := range []string{r.Title, r.UserID, r.Model, r.ModelName, r.ID} {
		if strings.Contains(strings.ToLower(f), query) {
			return true
		}
	}
	return false
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
