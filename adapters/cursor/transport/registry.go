package transport

import (
	"context"
	"sync"
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
}

// routeWait is signalled when a request id gets a transport (err == nil) or
// its opening append is refused (err != nil).
type routeWait struct {
	done chan struct{}
	err  error
}

// Registry maps request ids to transports and starts their runs.
type Registry struct {
	cfg      Config
	handler  RunHandler
	log      *zap.Logger
	stopping chan struct{}

	mu         sync.Mutex
	transports map[string]*Transport
	waits      map[string]*routeWait
	closed     bool
	wg         sync.WaitGroup
}

// NewRegistry returns a Registry that serves turns with handler.
func NewRegistry(handler RunHandler, cfg Config, log *zap.Logger) *Registry {
	return &Registry{
		cfg:        cfg.withDefaults(),
		handler:    handler,
		log:        log,
		stopping:   make(chan struct{}),
		transports: map[string]*Transport{},
		waits:      map[string]*routeWait{},
	}
}

// Config returns the effective configuration (defaults filled in).
func (r *Registry) Config() Config { return r.cfg }

// Append queues one client message under the ordering rules of the package
// doc and returns once it is queued. It fails with ErrNoModel,
// ErrRouteTimeout, *TooManyPendingError, ErrEmptyRequestID,
// ErrRegistryClosed, or ctx's error while it waits for the request id.
func (r *Registry) Append(ctx context.Context, a Append) error {
	if a.RequestID == "" {
		return ErrEmptyRequestID
	}
	timeout := time.NewTimer(r.cfg.RouteWait)
	defer timeout.Stop()
	for {
		w, err := r.tryAppend(a)
		if w == nil {
			return err
		}
		select {
		case <-w.done:
			if w.err != nil {
				return w.err
			}
		case <-timeout.C:
			return ErrRouteTimeout
		case <-ctx.Done():
			return ctx.Err()
		case <-r.stopping:
			return ErrRegistryClosed
		}
	}
}

// tryAppend applies a to the request id's transport, creating it for an
// opening append. It returns a routeWait when a must wait for the opening
// append of its request id.
func (r *Registry) tryAppend(a Append) (*routeWait, error) {
	r.mu.Lock()
	defer r.mu.Unlock()
	if r.closed {
		return nil, ErrRegistryClosed
	}
	opening := a.Seqno == 0 && a.Message.GetRunRequest() != nil
	if opening && !SelectsModel(a.Message.GetRunRequest()) {
		r.refuseRouteLocked(a.RequestID)
		return nil, ErrNoModel
	}
	t := r.transports[a.RequestID]
	if t != nil {
		if err := t.accept(a); err != errEnded {
			return nil, err
		}
	}
	switch {
	case opening:
		r.openLocked(a)
		return nil, nil
	case a.Seqno == 0:
		r.refuseRouteLocked(a.RequestID)
		return nil, ErrNoModel
	case t != nil && t.stale(a.Seqno):
		return nil, nil // a late duplicate for the ended generation
	}
	return r.waitLocked(a.RequestID), nil
}

func (r *Registry) openLocked(a Append) {
	t := newTransport(r, a)
	r.transports[a.RequestID] = t
	if w := r.waits[a.RequestID]; w != nil {
		delete(r.waits, a.RequestID)
		close(w.done)
	}
	r.wg.Add(1)
	go func() {
		defer r.wg.Done()
		t.supervise()
	}()
}

func (r *Registry) refuseRouteLocked(id string) {
	if w := r.waits[id]; w != nil {
		delete(r.waits, id)
		w.err = ErrNoModel
		close(w.done)
	}
}

func (r *Registry) waitLocked(id string) *routeWait {
	w := r.waits[id]
	if w == nil {
		w = &routeWait{done: make(chan struct{})}
		r.waits[id] = w
	}
	return w
}

// Subscribe attaches a reader to the request id's output, replayed from the
// first frame. An early RunSSE waits up to Config.RouteWait for the opening
// append. A transport that ended before anyone subscribed is replayed at
// once (the turn was faster than the client's RunSSE). A RunSSE after an
// ended and already watched transport waits up to Config.RouteWait for the
// next turn on the reused request id, then falls back to the ended
// transport's replay (ending with its end-of-stream frame). It fails
// with ErrRouteTimeout when the request id never appears, ErrEmptyRequestID,
// ErrRegistryClosed or ctx's error. The caller must Close the Subscription.
func (r *Registry) Subscribe(ctx context.Context, requestID string) (*Subscription, error) {
	if requestID == "" {
		return nil, ErrEmptyRequestID
	}
	timeout := time.NewTimer(r.cfg.RouteWait)
	defer timeout.Stop()
	for {
		r.mu.Lock()
		if r.closed {
			r.mu.Unlock()
			return nil, ErrRegistryClosed
		}
		t := r.transports[requestID]
		if t != nil && t.awaitsSubscriber() {
			r.mu.Unlock()
			return t.subscribe(), nil
		}
		w := r.waitLocked(requestID)
		r.mu.Unlock()
		select {
		case <-w.done:
			if w.err != nil {
				return nil, w.err
			}
		case <-timeout.C:
			if t != nil {
				return t.subscribe(), nil
			}
			return nil, ErrRouteTimeout
		case <-ctx.Done():
			return nil, ctx.Err()
		case <-r.stopping:
			return nil, ErrRegistryClosed
		}
	}
}

// Owns reports whether the request id has a live local transport (used to
// keep foreign payloads of a local run from going upstream).
func (r *Registry) Owns(requestID string) bool {
	r.mu.Lock()
	defer r.mu.Unlock()
	t := r.transports[requestID]
	return t != nil && !t.isEnded()
}

// retire forgets an ended transport after Config.Retain.
func (r *Registry) retire(t *Transport) {
	time.AfterFunc(r.cfg.Retain, func() {
		r.mu.Lock()
		defer r.mu.Unlock()
		if r.transports[t.id] == t {
			delete(r.transports, t.id)
		}
	})
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

// SelectsModel reports whether a run request names a model:
// requested_model.model_id, or else model_details.model_id.
func SelectsModel(req *agentv1.AgentRunRequest) bool {
	return req.GetRequestedModel().GetModelId() != "" || req.GetModelDetails().GetModelId() != ""
}
