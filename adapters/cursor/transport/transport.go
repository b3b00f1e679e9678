package transport

import (
	"errors"
	"sync"

	agentv1 "keygate/gen/cursor/agent/v1"
)

// errEnded tells the registry that a transport's stream is over, so an
// append must go to a new generation of the request id.
var errEnded = errors.New("transport ended")

type eventKind int

const (
	evMessage      eventKind = iota // a released client message
	evTurn                          // a run_request: start or supersede a turn
	evSubs                          // the subscriber count changed
	evUplinkClosed                  // the HTTP/2 request body ended
	evHandOver                      // the request id's next turn went upstream
	evDrain                         // the registry drains: no turn after the running one
	evAbandon                       // another replica owns the request id now
)

type event struct {
	kind   eventKind
	msg    *agentv1.AgentClientMessage
	size   int64 // bytes still charged for msg (evMessage)
	parent Parent
	subs   int
	err    error
}

// Transport is the state of one request id: ordering of its appends, its
// output log and its id counters. Its supervisor goroutine owns the runs.
type Transport struct {
	id  string
	key runKey // id, of owner
	reg *Registry
	// owner is the caller of the opening append; the request id is
	// theirs (key), other callers' appends never reach it.
	owner caller
	out   *outlog
	ids   idCounters
	// ledger holds what the owner is charged for this transport's buffered
	// and unread appends; it is closed when the stream ends.
	ledger *ledger

	mu      sync.Mutex
	next    int64 // next expected append_seqno
	pending map[int64]queued
	opening digest // of the seqno-0 run_request of the current turn
	events  []event
	subs    int
	watched bool // a subscriber has attached at least once
	ended   bool

	wake   chan struct{} // one token while events is non-empty
	exited chan struct{}
}

func newTransport(reg *Registry, a Append, owner caller) *Transport {
	t := &Transport{
		id:      a.RequestID,
		key:     owner.runKey(a.RequestID),
		reg:     reg,
		owner:   owner,
		out:     newOutlog(reg.cfg.MaxUnreadBytes, reg.cfg.MaxUnreadWait, reg.cfg.MaxReplayBytes, reg.cfg.ReplayAfterEnd),
		ledger:  &ledger{h: reg.held, who: owner, id: a.RequestID},
		next:    1,
		pending: map[int64]queued{},
		opening: digestOf(a.Raw),
		wake:    make(chan struct{}, 1),
		exited:  make(chan struct{}),
	}
	t.pushLocked(event{kind: evTurn, msg: a.Message, parent: a.Parent})
	return t
}

func (t *Transport) pushLocked(ev event) {
	t.events = append(t.events, ev)
	select {
	case t.wake <- struct{}{}:
	default:
	}
}

func (t *Transport) takeEvents() []event {
	t.mu.Lock()
	defer t.mu.Unlock()
	evs := t.events
	t.events = nil
	return evs
}

// accept applies the ordering rules of the package doc to one append. An
// append kept (buffered or released to the run) is charged to the owner's
// held bytes until the run reads it; one that would go over the bound
// fails with *OverBudgetError and is not kept.
func (t *Transport) accept(a Append) error {
	t.mu.Lock()
	defer t.mu.Unlock()
	if t.ended {
		return errEnded
	}
	if a.Seqno == 0 && a.Message.GetRunRequest() != nil {
		if digestOf(a.Raw) == t.opening {
			return nil // retry of the opening append
		}
		// The request id is reused for a new turn: numbering restarts.
		t.next, t.opening = 1, digestOf(a.Raw)
		t.dropPendingLocked()
		t.pushLocked(event{kind: evTurn, msg: a.Message, parent: a.Parent})
		return nil
	}
	m := queued{msg: a.Message, size: sizeOf(a)}
	switch {
	case a.Seqno < 0:
		// Unnumbered: released at once, outside the ordering.
		if err := t.ledger.take(m.size); err != nil {
			return err
		}
		t.releaseLocked(m, a.Parent)
	case a.Seqno < t.next:
		// Stale duplicate: already released.
	case a.Seqno > t.next:
		if _, dup := t.pending[a.Seqno]; dup {
			return nil
		}
		if len(t.pending) >= t.reg.cfg.MaxPending {
			return &TooManyPendingError{RequestID: t.id, Seqno: a.Seqno, Next: t.next, Limit: t.reg.cfg.MaxPending}
		}
		if err := t.ledger.take(m.size); err != nil {
			return err
		}
		t.pending[a.Seqno] = m
	default:
		if err := t.ledger.take(m.size); err != nil {
			return err
		}
		t.releaseLocked(m, a.Parent)
		t.next++
		for m, ok := t.pending[t.next]; ok; m, ok = t.pending[t.next] {
			delete(t.pending, t.next)
			t.releaseLocked(m, a.Parent)
			t.next++
		}
	}
	return nil
}

// dropPendingLocked forgets the buffered appends and their charge.
func (t *Transport) dropPendingLocked() {
	for _, m := range t.pending {
		t.ledger.give(m.size)
	}
	clear(t.pending)
}

// releaseLocked hands one in-order message to the supervisor. A client
// heartbeat is answered here, before any run work. A run_request is
// consumed by the supervisor at once, so its charge ends here.
func (t *Transport) releaseLocked(m queued, parent Parent) {
	if m.msg.GetClientHeartbeat() != nil {
		t.out.pulse()
	}
	if m.msg.GetRunRequest() != nil {
		t.ledger.give(m.size)
		t.pushLocked(event{kind: evTurn, msg: m.msg, parent: parent})
		return
	}
	t.pushLocked(event{kind: evMessage, msg: m.msg, size: m.size})
}

// stale reports whether seqno was already released by this (ended) transport.
func (t *Transport) stale(seqno int64) bool {
	t.mu.Lock()
	defer t.mu.Unlock()
	return seqno >= 0 && seqno < t.next
}

func (t *Transport) isEnded() bool {
	t.mu.Lock()
	defer t.mu.Unlock()
	return t.ended
}

func (t *Transport) subscribers() int {
	t.mu.Lock()
	defer t.mu.Unlock()
	return t.subs
}

// awaitsSubscriber reports whether a new subscriber belongs to this
// transport: it is live, or it ended before anyone watched it (a RunSSE that
// lost the race against a quickly failing turn).
func (t *Transport) awaitsSubscriber() bool {
	t.mu.Lock()
	defer t.mu.Unlock()
	return !t.ended || !t.watched
}

func (t *Transport) subscribe() *Subscription {
	t.mu.Lock()
	t.subs++
	t.watched = true
	t.pushLocked(event{kind: evSubs, subs: t.subs})
	t.mu.Unlock()
	return t.out.subscribe(t, t.reg.cfg.Heartbeat, func() {
		t.mu.Lock()
		t.subs--
		t.pushLocked(event{kind: evSubs, subs: t.subs})
		t.mu.Unlock()
	})
}

// closeUplink records that the client's uplink ended; see
// Subscription.CloseUplink.
func (t *Transport) closeUplink(err error) {
	t.mu.Lock()
	defer t.mu.Unlock()
	if !t.ended {
		t.pushLocked(event{kind: evUplinkClosed, err: err})
	}
}

// push queues ev unless the stream has ended.
func (t *Transport) push(ev event) {
	t.mu.Lock()
	defer t.mu.Unlock()
	if !t.ended {
		t.pushLocked(ev)
	}
}

// handOver ends the transport because its request id's next turn is
// Cursor's (see the evHandOver handling).
func (t *Transport) handOver() {
	t.mu.Lock()
	defer t.mu.Unlock()
	if !t.ended {
		t.pushLocked(event{kind: evHandOver})
	}
}
