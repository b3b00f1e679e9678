package ports

import "time"

// Clock is the time source of use cases that wait: retry back-off, commit
// and compaction deadlines, thinking durations. Production uses the system
// clock; specs use a fake one they advance by hand, so no spec sleeps for
// real and none depends on how fast the machine is.
type Clock interface {
	// Now returns the current time.
	Now() time.Time

	// After returns a channel that receives the time once d has elapsed on
	// this clock. The channel has a buffer of one, so a caller that stops
	// waiting (for example because its context was cancelled) leaks
	// nothing but a pending timer. d <= 0 fires immediately.
	After(d time.Duration) <-chan time.Time
}
