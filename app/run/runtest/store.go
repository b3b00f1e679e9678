package runtest

import (
	"context"
	"errors"
	"fmt"
	"sync"
	"time"

	"keygate/domain/callrecord"
	"keygate/domain/compaction"
	"keygate/domain/conversation"
	"keygate/domain/llm"
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

// Store is an in-memory conversation, run, tool-round, anchor and
// call-record store. Its zero value is not usable; call NewStore. It is safe
// for concurrent use: every method is one critical section, the in-memory
// equivalent of a transaction.
type Store struct {
	mu       sync.Mutex
	logs     map[string]*conversation.Log
	active   map[string]string
	runs     map[string]*ports.Run
	runOrder []string
	rounds   map[string]*storedRound
	anchors  map[string]compaction.Anchor
	calls    map[string]callrecord.Record
	blobs    map[string][]byte
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
		calls: map[string]callrecord.Record{},
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
	d, err := l.Apply(w.Change)
	if err != nil {
		return conversation.Decision{}, err
	}
	if w.RunID != "" && d.Outcome != conversation.Unchanged {
		s.runs[w.RunID].HeadCheckpointID = d.Checkpoint.ID()
	}
	return d, nil
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

// Start implements ports.CallRecorder.
func (s *Store) Start(_ context.Context, rec callrecord.Record) error {
	s.mu.Lock()
	defer s.mu.Unlock()
	s.calls[rec.CallID] = rec
	return nil
}

// Request implements ports.CallRecorder; requests are not kept.
func (s *Store) Request(context.Context, string, callrecord.Request) error { return nil }

// Chunks implements ports.CallRecorder; chunks are not kept.
func (s *Store) Chunks(context.Context, string, []callrecord.Chunk) error { return nil }

// Finish implements ports.CallRecorder.
func (s *Store) Finish(_ context.Context, rec callrecord.Record) error {
	s.mu.Lock()
	defer s.mu.Unlock()
	cur, ok := s.calls[rec.CallID]
	if !ok || cur.Status != callrecord.StatusRunning || !rec.Status.Final() {
		return callrecord.ErrNotRunning
	}
	s.calls[rec.CallID] = rec
	return nil
}

// CallRecord returns the record of one attempt.
func (s *Store) CallRecord(callID string) (callrecord.Record, bool) {
	s.mu.Lock()
	defer s.mu.Unlock()
	rec, ok := s.calls[callID]
	return rec, ok
}

// Runs returns the store's ports.RunStore.
func (s *Store) Runs() Runs { return Runs{s} }

// Rounds returns the store's ports.ToolRoundStore.
func (s *Store) Rounds() Rounds { return Rounds{s} }

// Runs implements ports.RunStore over a Store.
type Runs struct{ s *Store }

// Claim implements ports.RunStore.
func (r Runs) Claim(ctx context.Context, c ports.RunClaim) (string, error) {
	s := r.s
	s.mu.Lock()
	defer s.mu.Unlock()
	if err := s.fail(ctx, "claim"); err != nil {
		return "", err
	}
	l, ok := s.logs[c.ConversationID]
	if !ok {
		return "", fmt.Errorf("conversation %q: %w", c.ConversationID, ports.ErrNotFound)
	}
	if c.BaseCheckpointID == "" {
		c.BaseCheckpointID = l.Head().ID()
	}
	if _, ok := l.Checkpoint(c.BaseCheckpointID); !ok {
		return "", fmt.Errorf("base %q: %w", c.BaseCheckpointID, ports.ErrNotFound)
	}
	if _, ok := s.runs[c.RunID]; ok {
		return "", fmt.Errorf("run %q: %w", c.RunID, ports.ErrConflict)
	}
	now := time.Now()
	s.runs[c.RunID] = &ports.Run{RunClaim: c, HeadCheckpointID: c.BaseCheckpointID, Status: ports.RunRunning,
		ProviderCallIndex: -1, CreatedAt: now, UpdatedAt: now}
	s.runOrder = append(s.runOrder, c.RunID)
	replaced := ""
	if prev, ok := s.runs[s.active[c.ConversationID]]; ok && prev.Status == ports.RunRunning {
		prev.Status, prev.UpdatedAt, replaced = ports.RunCancelled, now, prev.RunID
		for id, rec := range s.calls {
			if rec.RunID == prev.RunID && rec.Status == callrecord.StatusRunning {
				s.calls[id], _ = rec.Cancel(now)
			}
		}
	}
	s.active[c.ConversationID] = c.RunID
	return replaced, nil
}

// Run implements ports.RunStore.
func (r Runs) Run(ctx context.Context, runID string) (ports.Run, error) {
	r.s.mu.Lock()
	defer r.s.mu.Unlock()
	run, ok := r.s.runs[runID]
	if !ok {
		return ports.Run{}, fmt.Errorf("run %q: %w", runID, ports.ErrNotFound)
	}
	return *run, ctx.Err()
}

// LatestForRequest implements ports.RunStore.
func (r Runs) LatestForRequest(ctx context.Context, cursorRequestID string) (ports.Run, error) {
	r.s.mu.Lock()
	defer r.s.mu.Unlock()
	for i := len(r.s.runOrder) - 1; i >= 0; i-- {
		if run := r.s.runs[r.s.runOrder[i]]; run.CursorRequestID == cursorRequestID {
			return *run, ctx.Err()
		}
	}
	return ports.Run{}, ports.ErrNotFound
}

// BeginProviderCall implements ports.RunStore.
func (r Runs) BeginProviderCall(ctx context.Context, runID string) (int, error) {
	s := r.s
	s.mu.Lock()
	defer s.mu.Unlock()
	if err := s.fail(ctx, "begin_provider_call"); err != nil {
		return 0, err
	}
	run, ok := s.runs[runID]
	if !ok {
		return 0, ports.ErrNotFound
	}
	if !s.owns(runID, run.ConversationID) {
		return 0, fmt.Errorf("run %q: %w", runID, ports.ErrNotOwner)
	}
	run.ProviderCallIndex++
	return run.ProviderCallIndex, nil
}

// Finish implements ports.RunStore.
func (r Runs) Finish(ctx context.Context, runID string, end ports.RunEnd) error {
	s := r.s
	s.mu.Lock()
	defer s.mu.Unlock()
	if err := ctx.Err(); err != nil {
		return err
	}
	run, ok := s.runs[runID]
	if !ok {
		return ports.ErrNotFound
	}
	if run.Status != ports.RunRunning {
		return fmt.Errorf("run %q: %w", runID, ports.ErrNotOwner)
	}
	run.Status, run.Usage, run.FailureCategory, run.FailureSummary = end.Status, end.Usage, end.FailureCategory, end.FailureSummary
	run.UpdatedAt = time.Now()
	if s.active[run.ConversationID] == runID {
		delete(s.active, run.ConversationID)
	}
	return nil
}

// Rounds implements ports.ToolRoundStore over a Store.
type Rounds struct{ s *Store }

// Start implements ports.ToolRoundStore.
func (t Rounds) Start(ctx context.Context, runID, baseCheckpointID string, round toolround.Round) error {
	s := t.s
	s.mu.Lock()
	defer s.mu.Unlock()
	if err := s.fail(ctx, "start_round"); err != nil {
		return err
	}
	run, ok := s.runs[runID]
	if !ok || !s.owns(runID, run.ConversationID) {
		return fmt.Errorf("run %q: %w", runID, ports.ErrNotOwner)
	}
	if stored, ok := s.rounds[round.ID()]; ok {
		if stored.round.Plan().Equal(round.Plan()) && stored.convID == run.ConversationID {
			return nil
		}
		return fmt.Errorf("round %q: %w", round.ID(), ports.ErrConflict)
	}
	if s.logs[run.ConversationID].Head().ID() != baseCheckpointID {
		return conversation.ErrStaleHead
	}
	s.rounds[round.ID()] = &storedRound{round: round, runID: runID, convID: run.ConversationID}
	return nil
}

// Round implements ports.ToolRoundStore.
func (t Rounds) Round(ctx context.Context, roundID string) (toolround.Round, error) {
	t.s.mu.Lock()
	defer t.s.mu.Unlock()
	r, ok := t.s.rounds[roundID]
	if !ok {
		return toolround.Round{}, fmt.Errorf("round %q: %w", roundID, ports.ErrNotFound)
	}
	return r.round, ctx.Err()
}

// Commit implements ports.ToolRoundStore.
func (t Rounds) Commit(ctx context.Context, runID, roundID string, res llm.ToolResult) (ports.ToolRoundCommit, error) {
	return t.settle(ctx, runID, roundID, func(r toolround.Round) (toolround.Round, []conversation.Message, bool, error) {
		next, c, err := r.Commit(res)
		return next, c.Messages, c.Duplicate, err
	})
}

// Interrupt implements ports.ToolRoundStore.
func (t Rounds) Interrupt(ctx context.Context, runID, roundID string, detached ...llm.ToolResult) (ports.ToolRoundCommit, error) {
	return t.settle(ctx, runID, roundID, func(r toolround.Round) (toolround.Round, []conversation.Message, bool, error) {
		next, msgs, err := r.Interrupt(detached...)
		return next, msgs, len(msgs) == 0, err
	})
}

func (t Rounds) settle(ctx context.Context, runID, roundID string,
	step func(toolround.Round) (toolround.Round, []conversation.Message, bool, error)) (ports.ToolRoundCommit, error) {
	s := t.s
	s.mu.Lock()
	defer s.mu.Unlock()
	if err := s.fail(ctx, "commit_round"); err != nil {
		return ports.ToolRoundCommit{}, err
	}
	sr, ok := s.rounds[roundID]
	if !ok {
		return ports.ToolRoundCommit{}, fmt.Errorf("round %q: %w", roundID, ports.ErrNotFound)
	}
	if !s.owns(runID, sr.convID) {
		if _, ok := s.runs[runID]; !ok {
			return ports.ToolRoundCommit{}, ports.ErrNotFound
		}
		return ports.ToolRoundCommit{}, fmt.Errorf("run %q: %w", runID, ports.ErrNotOwner)
	}
	l := s.logs[sr.convID]
	next, msgs, unchanged, err := step(sr.round)
	if err != nil {
		return ports.ToolRoundCommit{}, err
	}
	out := ports.ToolRoundCommit{Round: next, Checkpoint: l.Head(), Duplicate: unchanged, Settled: next.Settled()}
	if unchanged {
		return out, nil
	}
	d, err := l.Apply(conversation.AppendTo(l.Head(), msgs...))
	if err != nil {
		return ports.ToolRoundCommit{}, errors.Join(errors.New("append tool result"), err)
	}
	sr.round = next
	s.runs[runID].HeadCheckpointID = d.Checkpoint.ID()
	out.Checkpoint = d.Checkpoint
	return out, nil
}
