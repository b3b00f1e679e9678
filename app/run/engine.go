package run

import (
	"context"
	"errors"
	"fmt"
	"math/rand/v2"
	"sync"

	"go.uber.org/zap"

	"keygate/domain/compaction"
	"keygate/domain/identity"
	"keygate/domain/llm"
	"keygate/domain/projection"
	"keygate/ports"
)

// Engine runs PreparedRuns. It is safe for concurrent use; each run has
// its own goroutine. Runs of one conversation preempt each other through
// the run store, which holds for runs of other Engines and processes too;
// within one Engine the replaced run is also cancelled at once.
type Engine struct {
	convs    ports.ConversationStore
	runs     ports.RunStore
	rounds   ports.ToolRoundStore
	blobs    ports.BlobStore
	anchors  ports.ContextAnchorStore
	provider ports.ModelProvider
	clock    ports.Clock
	jitter   func() float64
	log      *zap.Logger
	limits   Limits

	mu     sync.Mutex
	active map[string]*Handle
}

// New checks o and returns an engine.
func New(o Options) (*Engine, error) {
	if o.Conversations == nil || o.Runs == nil || o.ToolRounds == nil || o.Provider == nil {
		return nil, errors.New("new run engine: conversations, runs, tool rounds and provider are required")
	}
	e := &Engine{
		convs: o.Conversations, runs: o.Runs, rounds: o.ToolRounds, blobs: o.Blobs, anchors: o.Anchors,
		provider: o.Provider, clock: o.Clock, jitter: o.Jitter, log: o.Logger, limits: o.Limits.withDefaults(),
		active: map[string]*Handle{},
	}
	if e.clock == nil {
		e.clock = SystemClock{}
	}
	if e.jitter == nil {
		e.jitter = rand.Float64
	}
	if e.log == nil {
		e.log = zap.NewNop()
	}
	if e.anchors == nil {
		e.anchors = newMemoryAnchors()
	}
	return e, nil
}

// Start claims the conversation for p (preempting its active run), then
// runs p on its own goroutine. ctx bounds the run's whole life, event
// delivery included: cancelling it cancels the run. Errors before the run
// starts (invalid input, unknown base checkpoint, a run id claimed before)
// are returned here and no run exists.
func (e *Engine) Start(ctx context.Context, p PreparedRun) (*Handle, error) {
	if p.RunID == "" || p.ConversationID == "" {
		return nil, errors.New("start run: run id and conversation id are required")
	}
	if p.Kind == 0 {
		p.Kind = KindRoot
	}
	if p.Action.Kind == 0 {
		p.Action.Kind = ActionStart
	}
	if p.Model.Settings.CacheKey == "" {
		p.Model.Settings.CacheKey = projection.CacheKey(p.ConversationID)
	}
	// A transport that read the history opened the conversation already.
	if p.HistoryOf == "" {
		if _, err := e.convs.Open(ctx, p.ConversationID); err != nil {
			return nil, fmt.Errorf("start run %q: %w", p.RunID, err)
		}
	}
	runCtx, cancel := context.WithCancelCause(ctx)
	h := newHandle(p.RunID, e.limits.EventBuffer, cancel)
	// Registering before the claim means a newer run's claim, which the
	// store orders after this one, always finds this handle to cancel.
	if err := e.register(h); err != nil {
		cancel(nil)
		return nil, fmt.Errorf("start run %q: %w", p.RunID, err)
	}
	claim := ports.RunClaim{
		RunID: p.RunID, ConversationID: p.ConversationID, CursorRequestID: p.CursorRequestID,
		Kind: p.Kind.String(), ParentRunID: p.ParentRunID, ParentToolCallID: p.ParentToolCallID,
		BaseCheckpointID: p.BaseCheckpointID,
	}
	opened := e.claimTurn(ctx, p, claim)
	var replaced string
	if opened != nil {
		replaced = opened.Replaced
	} else {
		var err error
		if replaced, err = e.runs.Claim(ctx, claim); err != nil {
			e.unregister(h)
			cancel(nil)
			return nil, fmt.Errorf("start run %q: %w", p.RunID, err)
		}
	}
	e.preempt(replaced)
	if p.Action.Kind == ActionResume && p.Action.FromRunID == "" && replaced != "" {
		// The run this one replaced was still running (its stream broke,
		// or the replica running it died): it is the one being resumed,
		// and its round may be open before any checkpoint the client
		// holds names it.
		p.Action.FromRunID = replaced
	}
	// The caller the transport put on ctx names the user in every line the
	// run logs.
	who, _ := identity.FromContext(ctx)
	r := &runner{
		e: e, p: p, h: h, outerDone: ctx.Done(),
		log: e.log.With(zap.String("run_id", p.RunID), zap.String("conversation_id", p.ConversationID),
			zap.String("user_id", who.UserID)),
		doneCalls: map[string]bool{}, opened: opened,
	}
	if replaced != "" {
		r.log.Info("run preempted an older run", zap.String("replaced_run_id", replaced))
	}
	go r.run(runCtx)
	return h, nil
}

// claimTurn starts a new turn (a start with initial messages) in one store
// write: the claim, the initial messages and the first model cycle's
// index (ports.RunStore.ClaimTurn), instead of three. It returns nil when
// p is another kind of run, or when that write failed: the caller then
// claims alone and the run appends its messages itself, so that a refused
// append fails the run as it always did (and a claim error is the
// claim's).
func (e *Engine) claimTurn(ctx context.Context, p PreparedRun, c ports.RunClaim) *ports.ClaimedTurn {
	if p.Action.Kind != ActionStart || len(p.InitialMessages) == 0 {
		return nil
	}
	t, err := e.runs.ClaimTurn(ctx, c, p.InitialMessages)
	if err != nil {
		e.log.Debug("turn not started in one write; claiming alone", zap.String("run_id", p.RunID), zap.Error(err))
		return nil
	}
	return &t
}

// register records h as a local run. A run id already running here is a
// conflict, as the store would say.
func (e *Engine) register(h *Handle) error {
	e.mu.Lock()
	defer e.mu.Unlock()
	if _, ok := e.active[h.runID]; ok {
		return ports.ErrConflict
	}
	e.active[h.runID] = h
	return nil
}

// preempt cancels the run a claim replaced, when it runs in this engine;
// a run of another engine or process finds out at its next write.
func (e *Engine) preempt(replaced string) {
	e.mu.Lock()
	defer e.mu.Unlock()
	if old, ok := e.active[replaced]; ok {
		old.Cancel(ReasonPreempted)
	}
}

// Shutdown cancels every run of the engine and waits until they ended or
// ctx is done. Each run ends Cancelled with reason "shutdown".
func (e *Engine) Shutdown(ctx context.Context) error {
	e.mu.Lock()
	handles := make([]*Handle, 0, len(e.active))
	for _, h := range e.active {
		handles = append(handles, h)
	}
	e.mu.Unlock()
	for _, h := range handles {
		h.Cancel(ReasonShutdown)
	}
	for _, h := range handles {
		if _, err := h.Wait(ctx); err != nil {
			return fmt.Errorf("shut down run engine: %w", err)
		}
	}
	return nil
}

func (e *Engine) unregister(h *Handle) {
	e.mu.Lock()
	defer e.mu.Unlock()
	delete(e.active, h.runID)
}

// memoryAnchors keeps context anchors for the engine's lifetime when no
// ports.ContextAnchorStore is configured.
type memoryAnchors struct {
	mu sync.Mutex
	m  map[string]compaction.Anchor
}

func newMemoryAnchors() *memoryAnchors { return &memoryAnchors{m: map[string]compaction.Anchor{}} }

func (a *memoryAnchors) ContextAnchor(_ context.Context, conversationID string) (compaction.Anchor, error) {
	a.mu.Lock()
	defer a.mu.Unlock()
	v, ok := a.m[conversationID]
	if !ok {
		return compaction.Anchor{}, ports.ErrNotFound
	}
	return v, nil
}

func (a *memoryAnchors) PutContextAnchor(_ context.Context, conversationID string, v compaction.Anchor) error {
	a.mu.Lock()
	defer a.mu.Unlock()
	if v == (compaction.Anchor{}) {
		delete(a.m, conversationID)
	} else {
		a.m[conversationID] = v
	}
	return nil
}

// usageAnchor returns the anchor a call with usage u that sent req sets,
// and whether u is authoritative enough to set one.
func usageAnchor(u *llm.Usage, req llm.Request) (compaction.Anchor, bool) {
	if u == nil || !u.Has(llm.UsageInput) {
		return compaction.Anchor{}, false
	}
	n := len(req.Messages)
	if n > 0 && isTransientID(req.Messages[n-1].ID) {
		n--
	}
	return compaction.Anchor{ContextTokens: u.ContextInput(), MessageCount: n}, true
}
