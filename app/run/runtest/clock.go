package runtest

import (
	"slices"
	"sync"
	"time"

	"keygate/ports"
)

var _ ports.Clock = (*Clock)(nil)

// Clock is a fake ports.Clock: time stands still until Advance moves it,
// and timers fire only then. Specs wait for Waiters to reach a count before
// advancing, so they never depend on real time.
type Clock struct {
	mu     sync.Mutex
	now    time.Time
	timers []*timer
}

type timer struct {
	c  *Clock
	at time.Time
	ch chan time.Time
}

// NewClock returns a clock standing at a fixed instant.
func NewClock() *Clock {
	return &Clock{now: time.Date(2026, 1, 2, 3, 4, 5, 0, time.UTC)}
}

// Now returns the clock's time.
func (c *Clock) Now() time.Time {
	c.mu.Lock()
	defer c.mu.Unlock()
	return c.now
}

// NewTimer returns a timer that fires once the clock was advanced by d.
func (c *Clock) NewTimer(d time.Duration) ports.Timer {
	c.mu.Lock()
	defer c.mu.Unlock()
	t := &timer{c: c, at: c.now.Add(d), ch: make(chan time.Time, 1)}
	if d <= 0 {
		t.ch <- c.now
		return t
	}
	c.timers = append(c.timers, t)
	return t
}

// Waiters returns how many timers are pending (not fired, not stopped).
func (c *Clock) Waiters() int {
	c.mu.Lock()
	defer c.mu.Unlock()
	return len(c.timers)
}

// WaitingFor reports whether a pending timer is due exactly d after the
// clock's now: a spec waits for the one timer it means to fire, where other
// timers of the engine may come and go meanwhile.
func (c *Clock) WaitingFor(d time.Duration) bool {
	c.mu.Lock()
	defer c.mu.Unlock()
	at := c.now.Add(d)
	for _, t := range c.timers {
		if t.at.Equal(at) {
			return true
		}
	}
	return false
}

// Advance moves the clock by d and fires every timer that became due.
func (c *Clock) Advance(d time.Duration) {
	c.mu.Lock()
	defer c.mu.Unlock()
	c.now = c.now.Add(d)
	c.timers = slices.DeleteFunc(c.timers, func(t *timer) bool {
		if t.at.After(c.now) {
			return false
		}
		t.ch <- c.now
		return true
	})
}

func (t *timer) C() <-chan time.Time { return t.ch }

func (t *timer) Stop() bool {
	t.c.mu.Lock()
	defer t.c.mu.Unlock()
	n := len(t.c.timers)
	t.c.timers = slices.DeleteFunc(t.c.timers, func(o *timer) bool { return o == t })
	return len(t.c.timers) < n
}
