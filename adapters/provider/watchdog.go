package provider

import (
	"fmt"
	"time"
)

// idleError is the cause a watchdog cancels a call with.
type idleError struct{ d time.Duration }

func (e *idleError) Error() string {
	secs := int(e.d / time.Second)
	return fmt.Sprintf("provider stream idle timeout: no events received for %d seconds (%.1f minutes)", secs, e.d.Minutes())
}

// watchdog cancels a call when no bytes arrive for d. A nil *watchdog is a
// disabled one.
type watchdog struct {
	t *time.Timer
	d time.Duration
}

func newWatchdog(d time.Duration, cancel func(error)) *watchdog {
	if d <= 0 {
		return nil
	}
	return &watchdog{d: d, t: time.AfterFunc(d, func() { cancel(&idleError{d: d}) })}
}

// kick restarts the idle period after bytes arrived.
func (w *watchdog) kick() {
	if w != nil {
		w.t.Reset(w.d)
	}
}

func (w *watchdog) stop() {
	if w != nil {
		w.t.Stop()
	}
}
