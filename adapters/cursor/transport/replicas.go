package transport

import (
	"context"
)

// What a replica needs of the registry to share its runs with the others
// (package bidi's Replicas): whether a request id's transport lives here,
// a tap that publishes its output, a count for subscribers served by
// another replica, giving a run up, and draining before shutdown.

// Live returns a channel closed when the caller's live transport of the
// request id ends, or nil when there is none (none yet, ended, or another
// caller's).
func (r *Registry) Live(ctx context.Context, requestID string) <-chan struct{} {
	t := r.live(ctx, requestID)
	if t == nil {
		return nil
	}
	return t.exited
}

// live returns the caller's live transport of the request id, or nil.
func (r *Registry) live(ctx context.Context, requestID string) *Transport {
	r.mu.Lock()
	t := r.transports[callerOf(ctx).runKey(requestID)]
	r.mu.Unlock()
	if t == nil || t.isEnded() {
		return nil
	}
	return t
}

// Tap reads the caller's live transport of the request id from its first
// frame, through Pending and Changed (so without heartbeats) and without
// counting as a subscriber (the run is orphaned as if it were not there);
// nil when there is none. The caller must Close it.
func (r *Registry) Tap(ctx context.Context, requestID string) *Subscription {
	t := r.live(ctx, requestID)
	if t == nil {
		return nil
	}
	return t.out.subscribe(t, t.reg.cfg.Heartbeat, func() {})
}

// Watch counts one subscriber on the caller's live transport of the
// request id until detach is called: a RunSSE served from another replica,
// so that the run is not orphaned while it lasts. ok is false when there is
// no such transport.
func (r *Registry) Watch(ctx context.Context, requestID string) (detach func(), ok bool) {
	t := r.live(ctx, requestID)
	if t == nil {
		return nil, false
	}
	s := t.subscribe()
	// It reads nothing here (the tap does, for the other replica), so it
	// must not hold the writer back nor keep the finished log whole.
	t.out.leave(s)
	return s.Close, true
}

// Abandon ends the caller's live transport of the request id because
// another replica owns it now: a running turn is cancelled (cause
// ErrAbandoned) and the stream ends with unavailable, so the client comes
// back and resumes the run on the replica that owns it.
func (r *Registry) Abandon(ctx context.Context, requestID string) {
	r.mu.Lock()
	t := r.transports[callerOf(ctx).runKey(requestID)]
	r.mu.Unlock()
	if t != nil {
		t.push(event{kind: evAbandon})
	}
}

// Drain prepares a shutdown: from now on no new turn starts here (an
// opening append fails with ErrDraining, and so do a RunSSE and an append
// that would wait for one), a lingering stream ends at once and a running
// turn finishes before its stream ends. Drain returns once
// every transport has ended, or with ctx's error.
func (r *Registry) Drain(ctx context.Context) error {
	r.mu.Lock()
	r.draining = true
	// What waits for an opening append here would wait for a turn that
	// can no longer start here: the RunSSE ends with unavailable and the
	// client takes its request id to another replica, where the appends
	// go too.
	for id, w := range r.waits {
		delete(r.waits, id)
		w.err = ErrDraining
		close(w.done)
	}
	live := make([]*Transport, 0, len(r.transports))
	for _, t := range r.transports {
		live = append(live, t)
	}
	r.mu.Unlock()
	for _, t := range live {
		t.push(event{kind: evDrain})
	}
	for _, t := range live {
		select {
		case <-t.exited:
		case <-ctx.Done():
			return ctx.Err()
		}
	}
	return nil
}
