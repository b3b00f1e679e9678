package relstore

import (
	"context"
	"fmt"
	"math"
	"time"

	"keygate/domain/callrecord"
	"keygate/domain/compaction"
	"keygate/domain/conversation"
	"keygate/ports"
)

// Forever stands in for "no upper bound" in list queries; both schemas can
// store it (unix milliseconds fit an int64, timestamptz reaches year 294276).
var Forever = time.Date(9999, 12, 31, 23, 59, 59, 0, time.UTC)

// CallListQuery is ports.CallQuery with every bound made explicit, so the
// SQL needs no optional parameters.
type CallListQuery struct {
	ModelID, Status, ConversationID string
	UserID                          string
	// Kind is a stored callrecord.Kind; empty matches every kind.
	Kind         string
	Since, Until time.Time
	AfterStarted time.Time
	AfterCallID  string
	Limit        int32
}

// PageQuery is a conversation page: rows ordered before (AfterUpdated,
// AfterID) in (updated_at, id) descending order.
type PageQuery struct {
	AfterUpdated time.Time
	AfterID      string
	Limit        int32
}

type consoleRows interface {
	ListCallRecords(ctx context.Context, q CallListQuery) ([]callrecord.Record, error)
	CountDetailedBefore(ctx context.Context, cutoff time.Time) (int, error)
	DeleteDetailsBefore(ctx context.Context, cutoff time.Time) error
	ListConversations(ctx context.Context, q PageQuery) ([]ports.ConversationSummary, error)
	// ConversationCheckpoints returns a conversation's checkpoint rows,
	// parents first, delta rows in ordinal order (Body unset).
	ConversationCheckpoints(ctx context.Context, conversationID string) ([]ChainRow, error)
	GetContextAnchor(ctx context.Context, conversationID string) (compaction.Anchor, error)
	PutContextAnchor(ctx context.Context, conversationID string, a compaction.Anchor, now time.Time) error
	DeleteContextAnchor(ctx context.Context, conversationID string) error
	PutPrompt(ctx context.Context, callID string, row PromptRow) error
	GetPrompt(ctx context.Context, callID string) (PromptRow, error)
	// DeletePromptsBefore deletes the prompts whose At is before cutoff
	// and returns how many.
	DeletePromptsBefore(ctx context.Context, cutoff time.Time) (int, error)
	// PromptBytes is what a call's prompt row occupies (see
	// [Store.PromptBytes]).
	PromptBytes(ctx context.Context, callID string) (int64, error)
}

// limit32 maps a port limit (<= 0: none) to a SQL LIMIT.
func limit32(n int) int32 {
	if n <= 0 || n > math.MaxInt32 {
		return math.MaxInt32
	}
	return int32(n)
}

// CallRecords implements ports.CallLister.
func (c Calls) CallRecords(ctx context.Context, q ports.CallQuery) ([]callrecord.Record, error) {
	lq := CallListQuery{
		ModelID: q.ModelID, Status: NameOf(q.Status), ConversationID: q.ConversationID, UserID: q.UserID, Kind: string(q.Kind),
		Since: q.Since, Until: q.Until, AfterStarted: Forever, Limit: limit32(q.Limit),
	}
	if lq.Until.IsZero() {
		lq.Until = Forever
	}
	if q.After != nil {
		lq.AfterStarted, lq.AfterCallID = q.After.Started, q.After.CallID
	}
	var out []callrecord.Record
	err := c.s.engine.Read(ctx, func(tx Tx) error {
		var err error
		out, err = tx.ListCallRecords(ctx, lq)
		return err
	})
	if err != nil {
		return nil, fmt.Errorf("list call records: %w", err)
	}
	return out, nil
}

// PurgeDetails implements ports.DetailPurger.
func (c Calls) PurgeDetails(ctx context.Context, cutoff time.Time) (int, error) {
	var n int
	err := c.s.engine.Write(ctx, func(tx Tx) error {
		var err error
		if n, err = tx.CountDetailedBefore(ctx, cutoff); err != nil || n == 0 {
			return err
		}
		return tx.DeleteDetailsBefore(ctx, cutoff)
	})
	if err != nil {
		return 0, fmt.Errorf("purge call details: %w", err)
	}
	return n, nil
}

var (
	_ ports.CallLister         = Calls{}
	_ ports.DetailPurger       = Calls{}
	_ ports.ConversationLister = Conversations{}
)

// Conversations implements ports.ConversationLister.
func (c Conversations) Conversations(ctx context.Context, after *ports.ConversationSummary, limit int) ([]ports.ConversationSummary, error) {
	q := PageQuery{AfterUpdated: Forever, Limit: limit32(limit)}
	if after != nil {
		q.AfterUpdated, q.AfterID = after.UpdatedAt, after.ID
	}
	var out []ports.ConversationSummary
	err := c.s.engine.Read(ctx, func(tx Tx) error {
		var err error
		out, err = tx.ListConversations(ctx, q)
		return err
	})
	if err != nil {
		return nil, fmt.Errorf("list conversations: %w", err)
	}
	return out, nil
}

// Checkpoints implements ports.ConversationLister.
func (c Conversations) Checkpoints(ctx context.Context, conversationID string) ([]ports.StoredCheckpoint, error) {
	var out []ports.StoredCheckpoint
	err := c.s.engine.Read(ctx, func(tx Tx) error {
		if _, err := tx.GetConversation(ctx, conversationID); err != nil {
			return err
		}
		rows, err := tx.ConversationCheckpoints(ctx, conversationID)
		for _, l := range groupChain(rows) {
			out = append(out, ports.StoredCheckpoint{CheckpointRecord: l.record, CreatedAt: l.createdAt})
		}
		return err
	})
	if err != nil {
		return nil, fmt.Errorf("list checkpoints of %q: %w", conversationID, err)
	}
	return out, nil
}

// ContextAnchors implements ports.ContextAnchorStore.
type ContextAnchors struct{ s *Store }

var _ ports.ContextAnchorStore = ContextAnchors{}

// ContextAnchor implements ports.ContextAnchorStore.
func (a ContextAnchors) ContextAnchor(ctx context.Context, conversationID string) (compaction.Anchor, error) {
	var out compaction.Anchor
	err := a.s.engine.Read(ctx, func(tx Tx) error {
		var err error
		out, err = tx.GetContextAnchor(ctx, conversationID)
		return err
	})
	if err != nil {
		return compaction.Anchor{}, fmt.Errorf("read context anchor of %q: %w", conversationID, err)
	}
	return out, nil
}

// PutContextAnchor implements ports.ContextAnchorStore.
func (a ContextAnchors) PutContextAnchor(ctx context.Context, conversationID string, anchor compaction.Anchor) error {
	err := a.s.engine.Write(ctx, func(tx Tx) error {
		if anchor == (compaction.Anchor{}) {
			return tx.DeleteContextAnchor(ctx, conversationID)
		}
		return tx.PutContextAnchor(ctx, conversationID, anchor, a.s.now())
	})
	if err != nil {
		return fmt.Errorf("put context anchor of %q: %w", conversationID, err)
	}
	return nil
}

// ConversationTitle makes the title of a conversation list row from the
// stored body of its first user-visible turn (conversation.Title); empty
// when the body is missing or unreadable.
func ConversationTitle(body []byte) string {
	if len(body) == 0 {
		return ""
	}
	m, err := conversation.DecodeMessage(body)
	if err != nil {
		return ""
	}
	return conversation.Title(m)
}
