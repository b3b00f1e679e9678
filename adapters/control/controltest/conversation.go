package controltest

import (
	"context"
	"fmt"
	"sort"
	"sync"
	"time"

	"keygate/domain/conversation"
	"keygate/ports"
)

// Conversations is an in-memory conversation store and lister: each
// conversation is a conversation.Log, which applies changes with the same
// rules a real store follows. Writes on behalf of runs are not checked for
// ownership (there are no runs here).
type Conversations struct {
	mu    sync.Mutex
	now   func() time.Time
	convs map[string]*storedConversation
	// owner maps a checkpoint id to its conversation.
	owner map[string]string
	// calls, when set, names each conversation's latest model.
	calls ports.CallLister
}

// ModelsFrom names each listed conversation's latest model from calls, as
// a store does from its call records.
func (c *Conversations) ModelsFrom(calls ports.CallLister) { c.calls = calls }

type storedConversation struct {
	log         *conversation.Log
	checkpoints []ports.StoredCheckpoint
	created     time.Time
	updated     time.Time
}

var (
	_ ports.ConversationStore  = (*Conversations)(nil)
	_ ports.ConversationLister = (*Conversations)(nil)
)

// NewConversations returns an empty store; now nil uses time.Now.
func NewConversations(now func() time.Time) *Conversations {
	if now == nil {
		now = time.Now
	}
	return &Conversations{now: now, convs: map[string]*storedConversation{}, owner: map[string]string{}}
}

// Open implements ports.ConversationStore.
func (c *Conversations) Open(ctx context.Context, id string) (conversation.Checkpoint, error) {
	if err := ctx.Err(); err != nil {
		return conversation.Checkpoint{}, fmt.Errorf("open conversation: %w", err)
	}
	c.mu.Lock()
	defer c.mu.Unlock()
	if s, ok := c.convs[id]; ok {
		return s.log.Head(), nil
	}
	log, err := conversation.NewLog(id)
	if err != nil {
		return conversation.Checkpoint{}, fmt.Errorf("open conversation: %w", err)
	}
	now := c.now().UTC()
	root := log.Root()
	c.convs[id] = &storedConversation{log: log, created: now, updated: now,
		checkpoints: []ports.StoredCheckpoint{{CheckpointRecord: root.Record(), CreatedAt: now}}}
	c.owner[root.ID()] = id
	return root, nil
}

// Head implements ports.ConversationStore.
func (c *Conversations) Head(ctx context.Context, id string) (conversation.Checkpoint, error) {
	s, err := c.conv(ctx, id)
	if err != nil {
		return conversation.Checkpoint{}, err
	}
	return s.log.Head(), nil
}

// Load implements ports.ConversationStore.
func (c *Conversations) Load(ctx context.Context, checkpointID string) (conversation.Checkpoint, []conversation.Message, error) {
	c.mu.Lock()
	convID, ok := c.owner[checkpointID]
	c.mu.Unlock()
	if !ok {
		return conversation.Checkpoint{}, nil, fmt.Errorf("checkpoint %s: %w", checkpointID, ports.ErrNotFound)
	}
	s, err := c.conv(ctx, convID)
	if err != nil {
		return conversation.Checkpoint{}, nil, err
	}
	c.mu.Lock()
	defer c.mu.Unlock()
	cp, _ := s.log.Checkpoint(checkpointID)
	msgs, err := s.log.Messages(checkpointID)
	return cp, msgs, err
}

// Apply implements ports.ConversationStore.
func (c *Conversations) Apply(ctx context.Context, w ports.Write) (conversation.Decision, error) {
	plan, err := w.Change.Plan()
	if err != nil {
		return conversation.Decision{}, err
	}
	base := plan.Base()
	s, err := c.conv(ctx, base.ConversationID())
	if err != nil {
		return conversation.Decision{}, err
	}
	c.mu.Lock()
	defer c.mu.Unlock()
	d, err := s.log.Apply(w.Change)
	if err != nil {
		return d, err
	}
	now := c.now().UTC()
	s.updated = now
	if d.Outcome == conversation.Create {
		s.checkpoints = append(s.checkpoints, ports.StoredCheckpoint{CheckpointRecord: d.Checkpoint.Record(), CreatedAt: now})
		c.owner[d.Checkpoint.ID()] = base.ConversationID()
	}
	return d, nil
}

func (c *Conversations) conv(ctx context.Context, id string) (*storedConversation, error) {
	if err := ctx.Err(); err != nil {
		return nil, fmt.Errorf("conversation %s: %w", id, err)
	}
	c.mu.Lock()
	defer c.mu.Unlock()
	s, ok := c.convs[id]
	if !ok {
		return nil, fmt.Errorf("conversation %s: %w", id, ports.ErrNotFound)
	}
	return s, nil
}

// Conversations implements ports.ConversationLister.
func (c *Conversations) Conversations(ctx context.Context, after *ports.ConversationSummary, limit int) ([]ports.ConversationSummary, error) {
	if err := ctx.Err(); err != nil {
		return nil, fmt.Errorf("list conversations: %w", err)
	}
	c.mu.Lock()
	defer c.mu.Unlock()
	var out []ports.ConversationSummary
	for id, s := range c.convs {
		sum := ports.ConversationSummary{ID: id, HeadCheckpointID: s.log.Head().ID(), CreatedAt: s.created, UpdatedAt: s.updated}
		if after == nil || listedAfter(sum, *after) {
			summarise(&sum, s)
			out = append(out, sum)
		}
	}
	sort.Slice(out, func(i, j int) bool { return listedAfter(out[j], out[i]) })
	if limit > 0 && len(out) > limit {
		out = out[:limit]
	}
	if c.calls != nil {
		for i := range out {
			recs, err := c.calls.CallRecords(ctx, ports.CallQuery{ConversationID: out[i].ID, Limit: 1})
			if err != nil {
				return nil, err
			}
			if len(recs) > 0 {
				out[i].Model = recs[0].Route.ID
				if out[i].Model == "" {
					out[i].Model = recs[0].Model.ModelID
				}
			}
		}
	}
	return out, nil
}

// summarise fills the title and turns of a conversation from every
// message its checkpoints hold, as a store does from its message rows.
func summarise(sum *ports.ConversationSummary, s *storedConversation) {
	seen := map[string]bool{}
	for _, cp := range s.checkpoints {
		msgs, _ := s.log.Messages(cp.ID)
		for _, m := range msgs {
			if seen[m.ID()] || m.RuntimeEventID() == "" {
				continue
			}
			seen[m.ID()] = true
			if sum.Turns == 0 {
				sum.Title = conversation.Title(m)
			}
			sum.Turns++
		}
	}
}

// listedAfter reports whether a comes after b in list order (older update, or
// the same update and a smaller id).
func listedAfter(a, b ports.ConversationSummary) bool {
	if !a.UpdatedAt.Equal(b.UpdatedAt) {
		return a.UpdatedAt.Before(b.UpdatedAt)
	}
	return a.ID < b.ID
}

// Checkpoints implements ports.ConversationLister.
func (c *Conversations) Checkpoints(ctx context.Context, conversationID string) ([]ports.StoredCheckpoint, error) {
	s, err := c.conv(ctx, conversationID)
	if err != nil {
		return nil, err
	}
	c.mu.Lock()
	defer c.mu.Unlock()
	return append([]ports.StoredCheckpoint(nil), s.checkpoints...), nil
}
