package transport

import (
	"context"
	"time"

	agentv1 "keygate/gen/cursor/agent/v1"
)

// Route says where the current turn of a request id is served.
type Route int

const (
	// Local means Keygate serves the turn through the RunHandler.
	Local Route = iota
	// Upstream means the turn belongs to Cursor's own service; the caller
	// forwards the append or the RunSSE unchanged.
	Upstream
)

// KeygateModel reports whether a model id is served by Keygate. It may do
// I/O and is never called with the registry's lock held. An error it cannot
// decide on should answer true, so the run layer reports it.
type KeygateModel func(ctx context.Context, modelID string) bool

// upstreamMark records that the current turn of a request id is Cursor's.
// It keeps a digest of the opening append, not its bytes: a mark may live
// for Config.UpstreamIdle, and only a retry's equality is asked of it.
type upstreamMark struct {
	owner   caller        // who sent the opening append
	opening digest        // of the seqno-0 run_request that chose the route
	sent    chan struct{} // closed once that append has gone to Cursor
	touched time.Time
	relays  int  // RunSSE relays attached now
	ended   bool // a relay saw Cursor's stream end
	expiry  *time.Timer
}

// Relay is an upstream RunSSE attachment; Close it when the relay returns.
type Relay struct {
	reg  *Registry
	mark *upstreamMark
}

// Ended records that Cursor's stream reached its end-of-stream frame: a
// later RunSSE on the request id then waits for the next turn. Call it
// before passing that frame on, so a client that reuses the request id at
// once finds the route already settled.
func (rl *Relay) Ended() {
	r := rl.reg
	r.mu.Lock()
	defer r.mu.Unlock()
	rl.mark.ended = true
}

// Close detaches the relay.
func (rl *Relay) Close() {
	r := rl.reg
	r.mu.Lock()
	defer r.mu.Unlock()
	rl.mark.relays--
	rl.mark.touched = time.Now()
}

// ModelID is the model a run request names: requested_model.model_id, or
// else model_details.model_id.
func ModelID(req *agentv1.AgentRunRequest) string {
	if id := req.GetRequestedModel().GetModelId(); id != "" {
		return id
	}
	return req.GetModelDetails().GetModelId()
}

// RouteOf decides the route of a turn opened by req: Upstream when the
// registry has a KeygateModel and it does not know the model.
func (r *Registry) RouteOf(ctx context.Context, req *agentv1.AgentRunRequest) Route {
	if r.keygate == nil || !SelectsModel(req) || r.keygate(ctx, ModelID(req)) {
		return Local
	}
	return Upstream
}

// markUpstreamLocked marks the request id's current turn as Cursor's and
// releases everything waiting for its route. A new mark counts against
// the caller's held bytes (*OverBudgetError) and expires on its own timer
// once idle for Config.UpstreamIdle.
func (r *Registry) markUpstreamLocked(a Append, who caller) error {
	now := time.Now()
	sum := digestOf(a.Raw)
	k := who.runKey(a.RequestID)
	if m := r.upstream[k]; m != nil && m.opening == sum {
		m.touched = now // a retried opening append
	} else {
		r.dropMarkLocked(k)
		if err := r.held.take(who, a.RequestID, markBytes(a.RequestID)); err != nil {
			return err
		}
		// The timer keeps the key, not the append itself.
		m := &upstreamMark{owner: who, opening: sum, sent: make(chan struct{}), touched: now}
		m.expiry = time.AfterFunc(r.cfg.UpstreamIdle, func() { r.expireMark(k, m) })
		r.upstream[k] = m
	}
	if w := r.waits[k]; w != nil {
		delete(r.waits, k)
		close(w.done)
	}
	return nil
}

// expireMark forgets m when it has been idle (no append, no relay) for
// Config.UpstreamIdle, and otherwise looks again when it could be.
func (r *Registry) expireMark(k runKey, m *upstreamMark) {
	r.mu.Lock()
	defer r.mu.Unlock()
	if r.upstream[k] != m {
		return
	}
	if idle := time.Since(m.touched); m.relays > 0 || idle < r.cfg.UpstreamIdle {
		m.expiry.Reset(max(r.cfg.UpstreamIdle-idle, r.cfg.UpstreamIdle/10))
		return
	}
	r.dropMarkLocked(k)
}

// dropMarkLocked forgets the request id's mark, if any, and its charge.
func (r *Registry) dropMarkLocked(k runKey) {
	m := r.upstream[k]
	if m == nil {
		return
	}
	m.expiry.Stop()
	delete(r.upstream, k)
	r.held.give(m.owner, markBytes(k.id))
}

// upstreamLocked returns the request id's mark, touched, or nil.
func (r *Registry) upstreamLocked(k runKey) *upstreamMark {
	m := r.upstream[k]
	if m != nil {
		m.touched = time.Now()
	}
	return m
}

// fallback is where a RunSSE goes when no new turn came in time: Cursor for
// an upstream request id, else the ended transport's replay.
func (r *Registry) fallback(k runKey, t *Transport) (*Subscription, *Relay, error) {
	r.mu.Lock()
	if m := r.upstreamLocked(k); m != nil {
		m.relays++
		r.mu.Unlock()
		return nil, &Relay{reg: r, mark: m}, nil
	}
	r.mu.Unlock()
	if t != nil {
		return t.subscribe(), nil, nil
	}
	return nil, nil, ErrRouteTimeout
}

// OpeningForwarded records that the seqno-0 run_request that routed the
// request id upstream has been sent to Cursor (or failed to be): appends
// that overtook it are held until then, so Cursor sees the run request
// first. The caller of an Upstream opening append must call it, with the
// append's context.
func (r *Registry) OpeningForwarded(ctx context.Context, requestID string) {
	r.mu.Lock()
	defer r.mu.Unlock()
	if m := r.upstream[callerOf(ctx).runKey(requestID)]; m != nil && !m.isSent() {
		close(m.sent)
	}
}

// isSent reports whether the opening append has gone to Cursor.
func (m *upstreamMark) isSent() bool {
	select {
	case <-m.sent:
		return true
	default:
		return false
	}
}
