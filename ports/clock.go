package ports

import "time"

// Clock is the time source of use cases that wait: retry back-off,
// compaction deadlines, thinking durations. Production uses the system
// clock; specs use a fake one they advance by hand, so no spec sleeps for
// real and none depends on how fast the machine is.
type Clock interface {
	// Now returns the current time.
	Now() time.Time

	// NewTimer starts a timer that fires once d has elapsed on this clock.
	// d <= 0 fires immediately. The caller stops a timer it no longer
	// waits for, so a fake clock knows exactly who is waiting.
	NewTimer(d time.Duration) Timer
}

// Timer is one pending wake-up of a [Clock].
type Timer interface {
	// C receives the clock's time once, when the timer fires. It has a
	// buffer of one, so a timer that fires unobserved blocks nothing.
	C() <-chan time.Time

	// Stop cancels the timer. It reports whether the timer was still
	// pending; stopping a fired or stopped timer is a no-op.
	Stop() bool
}
