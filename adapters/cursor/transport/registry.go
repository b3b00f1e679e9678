package transport

import (
	"context"
	"errors"
	"sync"
	"sync/atomic"
	"time"

	"go.uber.org/zap"

	agentv1 "keygate/gen/cursor/agent/v1"
)

// Append is one decoded client append (a BidiAppend, or one frame of an
// HTTP/2 Run stream with an implicit seqno).
type Append struct {
	RequestID string
	// Seqno is append_seqno; negative seqnos are released at once, unordered.
	Seqno   int64
	Message *agentv1.AgentClientMessage
	// Raw is Message as it arrived on the wire; it tells a retried opening
	// append from a new turn that reuses the request id.
	Raw    []byte
	Parent Parent
	// Waiting, when set, is called each time the append starts waiting
	// for its request id's opening append (or, for a turn routed to
	// Cursor, for that append to have been forwarded), so that a caller
	// applying appends one after another can go on with the next one.
	Waiting func()
}

// routeWait is signalled when a request id gets a transport (err == nil) or
// its opening append is refused (err != nil). waiters counts who waits on
// it, so that the entry goes when the last of them gives up.
type routeWait struct {
	done    chan struct{}
	err     error
	waiters int
}

// Registry maps request ids to transports and starts their runs.
type Registry struct {
	cfg      Config
	handler  RunHandler
	keygate  KeygateModel
	log      *zap.Logger
	stopping chan struct{}

	held     *held
	contexts *sharedContexts

	// onCommitted is called when a turn's opening messages are stored
	// (OnCommitted).
	onCommitted atomic.Pointer[func(ctx context.Context, requestID string)]

	mu sync.Mutex
	// Each caller has request ids of its own (runKey): another user's
	// request id is, to a caller, one nobody used.
	transports map[runKey]*Transport
	waits      map[runKey]*routeWait
	upstream   map[runKey]*upstreamMark
	closed     bool
	draining   bool
	wg         sync.WaitGroup
}

// NewRegistry returns a Registry that serves turns with handler. With a
// keygate predicate, a turn whose model it does not know is routed
// Upstream (see Append and Subscribe); with nil every turn is Local.
func NewRegistry(handler RunHandler, keygate KeygateModel, cfg Config, log *zap.Logger) *Registry {
	cfg = cfg.withDefaults()
	return &Registry{
		cfg:        cfg,
		held:       newHeld(cfg.MaxHeldBytes, cfg.MaxHeldBytesTotal),
		contexts:   newSharedContexts(),
		handler:    handler,
		keygate:    keygate,
		upstream:   map[runKey]*upstreamMark{},
		log:        log,
		stopping:   make(chan struct{}),
		transports: map[runKey]*Transport{},
		waits:      map[runKey]*routeWait{},
	}
}

// OnCommitted makes fn be called, on the turn's goroutine, when a turn
// made its first commit, with the turn's context (it carries the caller of
// its request id): a replica that kept the turn's opening append to hand it over, had
// it died before, lets it go (package bidi's Replicas). fn must not block
// for long.
func (r *Registry) OnCommitted(fn func(ctx context.Context, requestID string)) {
	r.onCommitted.Store(&fn)
}

// Config returns the effective configuration (defaults filled in).
func (r *Registry) Config() Config { return r.cfg }

// Append routes one client message. A seqno-0 run_request decides the
// route of its request id's turn (RouteOf). Local: the message is queued
// under the ordering rules of the package doc and Append returns once it is
// queued. Upstream: nothing is queued and the caller forwards the message
// unchanged; every later append of the request id is Upstream too, until a
// seqno-0 run_request for a Keygate model takes the request id back. An
// append that overtakes its request id's first run_request waits for the
// route, and an Upstream append also waits until the opening append has
// been forwarded (OpeningForwarded). Request ids are the caller's own
// (identity.FromContext): an append of another caller never reaches the
// transport of the same request id, and is answered as if nobody had
// used the request id, since for that caller nobody has. What an append keeps
// (buffered, unread, waiting, or an upstream mark) counts against its
// caller's held bytes (Config.MaxHeldBytes). It fails with ErrNoModel,
// ErrRouteTimeout, *TooManyPendingError, *OverBudgetError,
// ErrEmptyRequestID, ErrRegistryClosed, ErrDraining (see Drain), or ctx's
// error while it waits.
func (r *Registry) Append(ctx context.Context, a Append) (Route, error) {
	if a.RequestID == "" {
		return Local, ErrEmptyRequestID
	}
	who := callerOf(ctx)
	route := Local
	if a.Message.GetRunRequest() != nil {
		r.contexts.share(a.Message, a.Raw)
	}
	if a.Seqno == 0 && a.Message.GetRunRequest() != nil {
		route = r.RouteOf(ctx, a.Message.GetRunRequest())
	}
	timeout := time.NewTimer(r.cfg.RouteWait)
	defer timeout.Stop()
	charged := false
	defer func() {
		if charged {
			r.held.give(who, sizeOf(a))
		}
	}()
	for {
		got, w, err := r.tryAppend(a, route, who)
		if w == nil {
			return got, err
		}
		if !charged {
			// A waiting append is held too, on this goroutine.
			if err := r.held.take(who, a.RequestID, sizeOf(a)); err != nil {
				r.unwait(who.runKey(a.RequestID), w)
				return Local, err
			}
			charged = true
		}
		if a.Waiting != nil {
			a.Waiting()
		}
		err = r.await(ctx, w, timeout.C)
		r.unwait(who.runKey(a.RequestID), w)
		if err != nil {
			return Local, err
		}
	}
}

// await waits for w: nil once it is signalled without an error, else its
// error, ErrRouteTimeout, ctx's error or ErrRegistryClosed.
func (r *Registry) await(ctx context.Context, w *routeWait, timeout <-chan time.Time) error {
	select {
	case <-w.done:
		return w.err
	case <-timeout:
		return ErrRouteTimeout
	case <-ctx.Done():
		return ctx.Err()
	case <-r.stopping:
		return ErrRegistryClosed
	}
}

// tryAppend applies a to the request id's transport, creating it for an
// opening append, or marks or finds the request id upstream. It returns a
// routeWait when a must wait for the opening append of its request id.
func (r *Registry) tryAppend(a Append, route Route, who caller) (Route, *routeWait, error) {
	r.mu.Lock()
	defer r.mu.Unlock()
	if r.closed {
		return Local, nil, ErrRegistryClosed
	}
	k := who.runKey(a.RequestID)
	opening := a.Seqno == 0 && a.Message.GetRunRequest() != nil
	if opening && !SelectsModel(a.Message.GetRunRequest()) {
		r.refuseRouteLocked(k)
		return Local, nil, ErrNoModel
	}
	if opening && route == Local && r.draining {
		return Local, nil, ErrDraining
	}
	switch {
	case opening && route == Upstream:
		if err := r.markUpstreamLocked(a, who); err != nil {
			return Local, nil, err
		}
		if t := r.transports[k]; t != nil {
			t.handOver()
		}
		return Upstream, nil, nil
	case opening:
		r.dropMarkLocked(k) // the request id is reused for a Keygate turn
	case r.upstream[k] != nil:
		if m := r.upstreamLocked(k); !m.isSent() {
			return Upstream, &routeWait{done: m.sent, waiters: 1}, nil // after the run request
		}
		return Upstream, nil, nil
	}
	t := r.transports[k]
	if t != nil {
		if err := t.accept(a); !errors.Is(err, errEnded) {
			return Local, nil, err
		}
	}
	switch {
	case opening:
		r.openLocked(a, who, k)
		return Local, nil, nil
	case a.Seqno == 0:
		r.refuseRouteLocked(k)
		return Local, nil, ErrNoModel
	case t != nil && t.stale(a.Seqno):
		return Local, nil, nil // a late duplicate for the ended generation
	case t != nil && a.Message.GetClientHeartbeat() == nil:
		// After the stream ended, anything but a heartbeat can only belong
		// to the ended turn: a reply to something its server asked (a new
		// turn's server has asked nothing before its transport exists), or
		// an action on it (a cancel sent as it ended). It is accepted and
		// dropped rather than held, with its old number, for the next turn
		// of the reused request id. A heartbeat may overtake that turn's
		// run request and is harmless; it waits.
		r.log.Debug("late append after its turn ended", zap.String("request_id", a.RequestID), zap.Int64("seqno", a.Seqno),
			zap.String("kind", messageKind(a.Message)))
		return Local, nil, nil
	case r.draining:
		return Local, nil, ErrDraining // its opening append cannot start a turn here
	}
	return Local, r.waitLocked(k), nil
}

func (r *Registry) openLocked(a Append, who caller, k runKey) {
	t := newTransport(r, a, who)
	r.transports[k] = t
	if w := r.waits[k]; w != nil {
		delete(r.waits, k)
		close(w.done)
	}
	r.wg.Add(1)
	go func() {
		defer r.wg.Done()
		t.supervise()
	}()
}

func (r *Registry) refuseRouteLocked(k runKey) {
	if w := r.waits[k]; w != nil {
		delete(r.waits, k)
		w.err = ErrNoModel
		close(w.done)
	}
}

// waitLocked joins the wait for the request id's route; the caller must
// unwait when it stops waiting, however that happens.
func (r *Registry) waitLocked(k runKey) *routeWait {
	w := r.waits[k]
	if w == nil {
		w = &routeWait{done: make(chan struct{})}
		r.waits[k] = w
	}
	w.waiters++
	return w
}

// unwait leaves w; the last to leave an entry nobody signalled removes it,
// so request ids that never open leave nothing behind.
func (r *Registry) unwait(k runKey, w *routeWait) {
	r.mu.Lock()
	defer r.mu.Unlock()
	w.waiters--
	if w.waiters == 0 && r.waits[k] == w {
		delete(r.waits, k)
	}
}

// Subscribe attaches a reader to the request id's output, replayed from the
// first frame, or returns a Relay when the request id's current turn is
// Upstream (the caller then relays Cursor's RunSSE). An early RunSSE waits
// up to Config.RouteWait for the opening append. A transport that ended
// before anyone subscribed is replayed at once (the turn was faster than
// the client's RunSSE). A RunSSE after an ended and already watched
// transport, or after a relay that saw Cursor's stream end, waits up to
// Config.RouteWait for the next turn on the reused request id, then falls
// back to the ended transport's replay (ending with its end-of-stream
// frame) or to Cursor. It sees the caller's own request ids only (see
// Append). It fails with ErrRouteTimeout when the request id never
// appears, ErrEmptyRequestID, ErrRegistryClosed, ErrDraining
// (see Drain) or ctx's error. The caller must Close the Subscription or the
// Relay.
func (r *Registry) Subscribe(ctx context.Context, requestID string) (*Subscription, *Relay, error) {
	if requestID == "" {
		return nil, nil, ErrEmptyRequestID
	}
	k := callerOf(ctx).runKey(requestID)
	timeout := time.NewTimer(r.cfg.RouteWait)
	defer timeout.Stop()
	for {
		r.mu.Lock()
		if r.closed {
			r.mu.Unlock()
			return nil, nil, ErrRegistryClosed
		}
		m := r.upstreamLocked(k)
		if m != nil && !m.ended {
			m.relays++
			r.mu.Unlock()
			return nil, &Relay{reg: r, mark: m}, nil
		}
		t := r.transports[k]
		if m == nil && t != nil && t.awaitsSubscriber() {
			r.mu.Unlock()
			return t.subscribe(), nil, nil
		}
		if r.draining {
			r.mu.Unlock()
			return nil, nil, ErrDraining // the turn it would wait for starts elsewhere
		}
		w := r.waitLocked(k)
		r.mu.Unlock()
		if t != nil {
			// An ended stream keeps its replay for the fallback below.
			t.out.pin()
		}
		err := r.await(ctx, w, timeout.C)
		r.unwait(k, w)
		var s *Subscription
		var relay *Relay
		if errors.Is(err, ErrRouteTimeout) {
			s, relay, err = r.fallback(k, t)
		}
		if t != nil {
			t.out.unpin()
		}
		if s != nil || relay != nil || err != nil {
			return s, relay, err
		}
	}
}

// Owns reports whether the request id has a live local transport of the
// caller on ctx (used to keep foreign payloads of a local run from going
// upstream). Another caller's run is not reported: a foreign payload must
// not tell whether someone else's request id is live.
func (r *Registry) Owns(ctx context.Context, requestID string) bool {
	who := callerOf(ctx)
	r.mu.Lock()
	defer r.mu.Unlock()
	t := r.transports[who.runKey(requestID)]
	return t != nil && !t.isEnded()
}

// retire forgets an ended transport after Config.Retain.
func (r *Registry) retire(t *Transport) {
	time.AfterFunc(r.cfg.Retain, func() {
		r.mu.Lock()
		defer r.mu.Unlock()
		if r.transports[t.key] == t {
			delete(r.transports, t.key)
		}
	})
}

// Stats counts what a Registry holds now.
type Stats struct {
	// Transports are the live and the retained (ended, still replayable).
	Transports int
	// Waits are the request ids that appends or subscribers wait on.
	Waits int
	// UpstreamMarks are the request ids whose turn is Cursor's.
	UpstreamMarks int
	// SharedContexts are the decoded request contexts that run requests
	// with the same context bytes share now.
	SharedContexts int
	// HeldBytes are the client bytes held for all callers (see
	// Config.MaxHeldBytesTotal).
	HeldBytes int64
	// ReplayBytes are the bytes the transports' output logs hold for
	// their subscribers and replays (see Config.MaxReplayBytes and
	// Config.ReplayAfterEnd).
	ReplayBytes int64
}

// Stats returns what the registry holds now, for diagnostics and specs.
func (r *Registry) Stats() Stats {
	r.mu.Lock()
	defer r.mu.Unlock()
	var replay int64
	for _, t := range r.transports {
		replay += t.out.held()
	}
	return Stats{Transports: len(r.transports), Waits: len(r.waits), UpstreamMarks: len(r.upstream), HeldBytes: r.held.bytes(), ReplayBytes: replay,
		SharedContexts: r.contexts.size()}
}

// Close cancels every run (cause ErrRegistryClosed), ends their streams with
// unavailable and waits for them until ctx is done.
func (r *Registry) Close(ctx context.Context) error {
	r.mu.Lock()
	if !r.closed {
		r.closed = true
		close(r.stopping)
	}
	r.mu.Unlock()
	done := make(chan struct{})
	go func() {
		r.wg.Wait()
		close(done)
	}()
	select {
	case <-done:
		return nil
	case <-ctx.Done():
		return ctx.Err()
	}
}

// SelectsModel reports whether a run request names a model (see ModelID).
func SelectsModel(req *agentv1.AgentRunRequest) bool {
	return ModelID(req) != ""
}
