package runtest

import (
	"context"
	"fmt"
	"sync"

	"keygate/domain/compaction"
	"keygate/domain/conversation"
	"keygate/domain/toolround"
	"keygate/ports"
)

var (
	_ ports.ConversationStore  = (*Store)(nil)
	_ ports.RunStore           = Runs{}
	_ ports.ToolRoundStore     = Rounds{}
	_ ports.ContextAnchorStore = (*Store)(nil)
	_ ports.CallRecorder       = (*Store)(nil)
)

// Store is an in-memory conversation, run, tool-round, blob, anchor and
// call-record store: the store ports the run engine uses. It passes the
// same contract suite as the SQL stores (porttest.DescribeEngineStores).
// Its zero value is not usable; call NewStore. It is safe for concurrent
// use: every method is one critical section, the in-memory equivalent of a
// transaction.
type Store struct {
	mu       sync.Mutex
	logs     map[string]*conversation.Log
	active   map[string]string
	runs     map[string]*ports.Run
	runOrder []string
	rounds   map[string]*storedRound
	anchors  map[string]compaction.Anchor
	calls    map[string]*storedCall
	blobs    map[string][]byte
	// children are the blob references recorded by Link, by parent.
	children map[string]map[string]bool
	// Fail, when set, is consulted before every write with the operation's
	// name; a non-nil error fails the write before it changes anything.
	Fail func(op string) error
}

type storedRound struct {
	round  toolround.Round
	runID  string
	convID string
}

// NewStore returns an empty store.
func NewStore() *Store {
	return &Store{
		logs: map[string]*conversation.Log{}, active: map[string]string{}, runs: map[string]*ports.Run{},
		rounds: map[string]*storedRound{}, anchors: map[string]compaction.Anchor{},
		calls: map[string]*storedCall{}, blobs: map[string][]byte{}, children: map[string]map[string]bool{},
	}
}

func (s *Store) fail(ctx context.Context, op string) error {
	if err := ctx.Err(); err != nil {
		return fmt.Errorf("%s: %w", op, err)
	}
	if s.Fail != nil {
		return s.Fail(op)
	}
	return nil
}

// Open implements ports.ConversationStore.
func (s *Store) Open(ctx context.Context, conversationID string) (conversation.Checkpoint, error) {
	s.mu.Lock()
	defer s.mu.Unlock()
	if err := ctx.Err(); err != nil {
		return conversation.Checkpoint{}, err
	}
	l, ok := s.logs[conversationID]
	if !ok {
		var err error
		if l, err = conversation.NewLog(conversationID); err != nil {
			return conversation.Checkpoint{}, err
		}
		s.logs[conversationID] = l
	}
	return l.Head(), nil
}

// Head implements ports.ConversationStore.
func (s *Store) Head(ctx context.Context, conversationID string) (conversation.Checkpoint, error) {
	s.mu.Lock()
	defer s.mu.Unlock()
	if err := ctx.Err(); err != nil {
		return conversation.Checkpoint{}, err
	}
	l, ok := s.logs[conversationID]
	if !ok {
		return conversation.Checkpoint{}, ports.ErrNotFound
	}
	return l.Head(), nil
}

// Load implements ports.ConversationStore.
func (s *Store) Load(ctx context.Context, checkpointID string) (conversation.Checkpoint, []conversation.Message, error) {
	s.mu.Lock()
	defer s.mu.Unlock()
	if err := ctx.Err(); err != nil {
		return conversation.Checkpoint{}, nil, err
	}
	for _, l := range s.logs {
		if c, ok := l.Checkpoint(checkpointID); ok {
			msgs, err := l.Messages(checkpointID)
			return c, msgs, err
		}
	}
	return conversation.Checkpoint{}, nil, fmt.Errorf("checkpoint %q: %w", checkpointID, ports.ErrNotFound)
}

// Apply implements ports.ConversationStore.
func (s *Store) Apply(ctx context.Context, w ports.Write) (conversation.Decision, error) {
	s.mu.Lock()
	defer s.mu.Unlock()
	if err := s.fail(ctx, "apply"); err != nil {
		return conversation.Decision{}, err
	}
	plan, err := w.Change.Plan()
	if err != nil {
		return conversation.Decision{}, err
	}
	convID := plan.Base().ConversationID()
	l, ok := s.logs[convID]
	if !ok {
		return conversation.Decision{}, fmt.Errorf("conversation %q: %w", convID, ports.ErrNotFound)
	}
	if _, ok := l.Checkpoint(plan.Base().ID()); !ok {
		return conversation.Decision{}, fmt.Errorf("base %q: %w", plan.Base().ID(), ports.ErrNotFound)
	}
	if w.RunID != "" && !s.owns(w.RunID, convID) {
		return conversation.Decision{}, fmt.Errorf("run %q: %w", w.RunID, ports.ErrNotOwner)
	}
	return s.apply(l, w)
}

// apply is Apply on l once the store is locked and the base and owner
// checked.
func (s *Store) apply(l *conversation.Log, w ports.Write) (conversation.Decision, error) {
	if err := s.decideStored(l, w.Change); err != nil {
		return conversation.Decision{}, err
	}
	d, err := l.Apply(w.Change)
	if err != nil {
		return conversation.Decision{}, err
	}
	if w.RunID != "" && d.Outcome != conversation.Unchanged {
		s.runs[w.RunID].HeadCheckpointID = d.Checkpoint.ID()
	}
	return d, nil
}

// decideStored decides ch on l without writing it and checks that the
// images of the messages it would store name stored blobs, as the SQL
// stores' foreign keys do; an undecidable change is left to l.Apply to
// refuse.
func (s *Store) decideStored(l *conversation.Log, ch conversation.Change) error {
	d, err := l.Decide(ch)
	if err != nil {
		return nil
	}
	for _, m := range d.NewMessages {
		for _, id := range imageBlobs(m) {
			if _, ok := s.blobs[id]; !ok {
				return fmt.Errorf("message %q image blob %s: %w", m.ID(), id, ports.ErrNotFound)
			}
		}
	}
	return nil
}

// imageBlobs lists the blob ids m's images name.
func imageBlobs(m conversation.Message) []string {
	var ids []string
	for _, p := range m.Parts() {
		if p.Image != nil && p.Image.BlobID != "" {
			ids = append(ids, p.Image.BlobID)
		}
	}
	if r, ok := m.ToolResult(); ok && r.Image != nil && r.Image.BlobID != "" {
		ids = append(ids, r.Image.BlobID)
	}
	return ids
}

// owns reports whether run is the running, active run of convID.
func (s *Store) owns(runID, convID string) bool {
	r, ok := s.runs[runID]
	return ok && r.Status == ports.RunRunning && r.ConversationID == convID && s.active[convID] == runID
}

// Messages returns the head messages of a conversation, for assertions.
func (s *Store) Messages(conversationID string) []conversation.Message {
	s.mu.Lock()
	defer s.mu.Unlock()
	l, ok := s.logs[conversationID]
	if !ok {
		return nil
	}
	msgs, err := l.Messages(l.Head().ID())
	if err != nil {
		panic(err)
	}
	return msgs
}

// ContextAnchor implements ports.ContextAnchorStore.
func (s *Store) ContextAnchor(ctx context.Context, conversationID string) (compaction.Anchor, error) {
	s.mu.Lock()
	defer s.mu.Unlock()
	a, ok := s.anchors[conversationID]
	if !ok {
		return compaction.Anchor{}, ports.ErrNotFound
	}
	return a, ctx.Err()
}

// PutContextAnchor implements ports.ContextAnchorStore.
func (s *Store) PutContextAnchor(ctx context.Context, conversationID string, a compaction.Anchor) error {
	s.mu.Lock()
	defer s.mu.Unlock()
	if err := ctx.Err(); err != nil {
		return err
	}
	if a == (compaction.Anchor{}) {
		delete(s.anchors, conversationID)
	} else {
		s.anchors[conversationID] = a
	}
	return nil
}
