package runtest

import (
	"sync"

	"keygate/app/run"
)

// Transport drains a run's events the way a real transport does: it keeps
// every event, acknowledges commit barriers (unless Hold is set) and hands
// each event to OnEvent, which may send commands to the run.
type Transport struct {
	// OnEvent is called on the transport's goroutine for each event, after
	// the barrier of a MessagesCommitted was acknowledged.
	OnEvent func(h *run.Handle, ev run.Event)
	// Hold leaves barriers unacknowledged; Ack releases them.
	Hold bool

	h      *run.Handle
	mu     sync.Mutex
	events []run.Event
	held   []*run.Barrier
	done   chan struct{}
}

// Drive starts draining h. Configure t's fields before calling it.
func (t *Transport) Drive(h *run.Handle) *Transport {
	t.h, t.done = h, make(chan struct{})
	go func() {
		defer close(t.done)
		for ev := range h.Events() {
			t.mu.Lock()
			t.events = append(t.events, ev)
			if mc, ok := ev.(run.MessagesCommitted); ok && mc.Barrier != nil {
				if t.Hold {
					t.held = append(t.held, mc.Barrier)
				} else {
					mc.Barrier.Ack()
				}
			}
			t.mu.Unlock()
			if t.OnEvent != nil {
				t.OnEvent(h, ev)
			}
		}
	}()
	return t
}

// Ack acknowledges every held barrier.
func (t *Transport) Ack() {
	t.mu.Lock()
	defer t.mu.Unlock()
	for _, b := range t.held {
		b.Ack()
	}
	t.held = nil
}

// Held returns how many barriers wait for Ack.
func (t *Transport) Held() int {
	t.mu.Lock()
	defer t.mu.Unlock()
	return len(t.held)
}

// Events returns the events received so far.
func (t *Transport) Events() []run.Event {
	t.mu.Lock()
	defer t.mu.Unlock()
	return append([]run.Event(nil), t.events...)
}

// Done is closed once the event channel closed.
func (t *Transport) Done() <-chan struct{} { return t.done }

// Text returns the visible text the transport received.
func (t *Transport) Text() string {
	var s string
	for _, ev := range t.Events() {
		if d, ok := ev.(run.TextDelta); ok {
			s += d.Text
		}
	}
	return s
}

// Outcome returns the outcome of the Ended event, and whether it came.
func (t *Transport) Outcome() (run.Outcome, bool) {
	for _, ev := range t.Events() {
		if e, ok := ev.(run.Ended); ok {
			return e.Outcome, true
		}
	}
	return run.Outcome{}, false
}
