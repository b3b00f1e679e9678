package transport

import (
	"crypto/sha256"
	"fmt"
	"sync"
)

// held accounts the bytes of client messages a Registry holds on behalf of
// its callers: appends buffered out of order, released appends the run has
// not read yet, appends waiting for their request id's opening append, and
// the marks of turns routed to Cursor. Each caller has a bound of its own
// and all of them one together, so that one caller's flood is refused
// while the others go on.
type held struct {
	perCaller int64
	total     int64

	mu  sync.Mutex
	by  map[string]int64
	sum int64
}

func newHeld(perCaller, total int64) *held {
	return &held{perCaller: perCaller, total: total, by: map[string]int64{}}
}

// key names a caller's account; anonymous callers share one.
func (c caller) key() string {
	if !c.known {
		return "-"
	}
	return "u:" + c.id.UserID
}

// take charges n bytes to who, or fails with *OverBudgetError and charges
// nothing.
func (h *held) take(who caller, requestID string, n int64) error {
	h.mu.Lock()
	defer h.mu.Unlock()
	k := who.key()
	switch {
	case h.by[k]+n > h.perCaller:
		return &OverBudgetError{RequestID: requestID, Held: h.by[k], Size: n, Limit: h.perCaller}
	case h.sum+n > h.total:
		return &OverBudgetError{RequestID: requestID, Held: h.sum, Size: n, Limit: h.total, Everyone: true}
	}
	h.by[k] += n
	h.sum += n
	return nil
}

// give returns n bytes charged to who.
func (h *held) give(who caller, n int64) {
	if n <= 0 {
		return
	}
	h.mu.Lock()
	defer h.mu.Unlock()
	k := who.key()
	left := h.by[k] - n
	if left <= 0 {
		delete(h.by, k)
	} else {
		h.by[k] = left
	}
	h.sum -= n
}

func (h *held) bytes() int64 {
	h.mu.Lock()
	defer h.mu.Unlock()
	return h.sum
}

// ledger is one transport's share of held: what its caller has charged for
// it so far. Closing it when the transport ends returns every byte still
// charged, including those of messages dropped on the way (a superseded
// turn's unread inbox), so nothing stays charged past the transport's life.
type ledger struct {
	h   *held
	who caller
	id  string

	mu     sync.Mutex
	n      int64
	closed bool
}

func (l *ledger) take(n int64) error {
	l.mu.Lock()
	defer l.mu.Unlock()
	if l.closed {
		return nil // the transport has ended; nothing more is kept for it
	}
	if err := l.h.take(l.who, l.id, n); err != nil {
		return err
	}
	l.n += n
	return nil
}

func (l *ledger) give(n int64) {
	l.mu.Lock()
	defer l.mu.Unlock()
	if l.closed {
		return
	}
	n = min(n, l.n)
	l.n -= n
	l.h.give(l.who, n)
}

func (l *ledger) close() {
	l.mu.Lock()
	defer l.mu.Unlock()
	if l.closed {
		return
	}
	l.closed = true
	l.h.give(l.who, l.n)
	l.n = 0
}

// sizeOf is what a held append counts: its bytes on the wire.
func sizeOf(a Append) int64 { return int64(len(a.Raw)) }

// markBytes is what an upstream mark counts: its request id and its
// digest of the opening append, plus the mark's own bookkeeping.
func markBytes(id string) int64 { return int64(len(id)) + 160 }

// digest identifies an opening append without keeping its bytes: only
// equality is ever asked of it (a retried opening append).
type digest [sha256.Size]byte

func digestOf(raw []byte) digest { return sha256.Sum256(raw) }

// OverBudgetError reports an append refused because the bytes its caller
// (or, with Everyone, all callers together) has waiting in the registry
// would go over the configured bound (Config.MaxHeldBytes,
// Config.MaxHeldBytesTotal). Other callers are not affected by one
// caller's bound.
type OverBudgetError struct {
	RequestID string
	Held      int64 // bytes held already
	Size      int64 // bytes this append would add
	Limit     int64
	Everyone  bool
}

func (e *OverBudgetError) Error() string {
	if e.Everyone {
		return fmt.Sprintf("request %s: the server already holds %d bytes of appends not yet applied from all users (limit %d); try again shortly",
			e.RequestID, e.Held, e.Limit)
	}
	return fmt.Sprintf("request %s: %d bytes of your appends are waiting to be applied and this one adds %d (limit %d per user); wait for your runs to catch up",
		e.RequestID, e.Held, e.Size, e.Limit)
}
