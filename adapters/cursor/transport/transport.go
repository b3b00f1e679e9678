package transport

import (
	"errors"
	"maps"
	"slices"
	"sync"
	"time"

	"go.uber.org/zap"

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
	// skipped are the seqnos below next that a gap skip released nothing
	// for (see Config.GapWait); gap is the timer of the wait for next
	// while pending holds later appends: gapAt is the seqno it waits for,
	// gapGen tells its callback from one a later wait replaced.
	skipped map[int64]struct{}
	gap     *time.Timer
	gapAt   int64
	gapGen  uint64
	parent  Parent // of the opening append: a subagent run's appends all carry it
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
		parent:  a.Parent,
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
		t.next, t.opening, t.parent = 1, digestOf(a.Raw), a.Parent
		t.dropPendingLocked()
		clear(t.skipped)
		if t.gap != nil {
			t.gap.Stop()
			t.gap = nil
			t.gapGen++
		}
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
		if _, ok := t.skipped[a.Seqno]; !ok {
			return nil // stale duplicate: already released
		}
		// Skipped after the gap wait, here now: released late rather
		// than lost.
		if err := t.ledger.take(m.size); err != nil {
			return err
		}
		delete(t.skipped, a.Seqno)
		t.releaseLocked(m, a.Parent)
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
		t.awaitGapLocked()
	default:
		if err := t.ledger.take(m.size); err != nil {
			return err
		}
		t.releaseLocked(m, a.Parent)
		t.next++
		t.releasePendingLocked(a.Parent)
	}
	return nil
}

// releasePendingLocked releases the buffered appends that follow next
// without a gap, and waits for the next gap if later ones remain.
func (t *Transport) releasePendingLocked(parent Parent) {
	for m, ok := t.pending[t.next]; ok; m, ok = t.pending[t.next] {
		delete(t.pending, t.next)
		t.releaseLocked(m, parent)
		t.next++
	}
	t.awaitGapLocked()
}

// awaitGapLocked starts the wait for the missing seqno next while later
// appends are buffered, unless that wait runs already.
func (t *Transport) awaitGapLocked() {
	if len(t.pending) == 0 || t.ended {
		return
	}
	if t.gap != nil {
		if t.gapAt == t.next {
			return
		}
		t.gap.Stop()
	}
	t.gapAt = t.next
	t.gapGen++
	gen := t.gapGen
	t.gap = time.AfterFunc(t.reg.cfg.GapWait, func() { t.skipGap(gen) })
}

// skipGap ends wait gen: unless a later wait replaced it, it gives up the
// seqnos from next up to the first buffered append, if next is still the
// one the wait was for, and releases what was buffered behind them.
func (t *Transport) skipGap(gen uint64) {
	t.mu.Lock()
	defer t.mu.Unlock()
	if t.gapGen != gen {
		return // a stale timer: a later wait replaced it
	}
	t.gap = nil
	if t.ended || t.next != t.gapAt || len(t.pending) == 0 {
		return
	}
	first := slices.Min(slices.Collect(maps.Keys(t.pending)))
	if t.skipped == nil {
		t.skipped = map[int64]struct{}{}
	}
	for s := t.next; s < first && len(t.skipped) < t.reg.cfg.MaxPending; s++ {
		t.skipped[s] = struct{}{}
	}
	t.reg.log.Warn("appends missing for the gap wait; releasing those buffered after them",
		zap.String("request_id", t.id), zap.Int64("missing_from", t.next), zap.Int64("missing_to", first-1),
		zap.Int("buffered", len(t.pending)), zap.Duration("gap_wait", t.reg.cfg.GapWait))
	t.next = first
	t.releasePendingLocked(t.parent)
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
