package routing

import (
	"context"
	"time"

	"keygate/domain/llm"
	"keygate/ports"
)

// watch cancels ctx with errNoOutput once timeout has passed on clock,
// unless the returned stop is called first; once stop returns, ctx is
// cancelled by the watch or never will be. timeout <= 0 watches nothing.
func watch(ctx context.Context, cancel context.CancelCauseFunc, clock ports.Clock, timeout time.Duration) (stop func()) {
	if timeout <= 0 {
		return func() {}
	}
	done, exited := make(chan struct{}), make(chan struct{})
	timer := clock.NewTimer(timeout)
	go func() {
		defer close(exited)
		defer timer.Stop()
		select {
		case <-timer.C():
			cancel(errNoOutput)
		case <-done:
		case <-ctx.Done():
		}
	}()
	return func() {
		close(done)
		<-exited
	}
}

// firstOutput reads stream until its first output event (text, thinking,
// a tool call, the end), so that a failure before it can still move the
// call, and returns what it read. A stream that ends without output and
// without error is no failure: the engine judges it.
func firstOutput(stream ports.ModelStream) ([]llm.Event, error) {
	var held []llm.Event
	for stream.Next() {
		ev := stream.Event()
		if ev.Usage != nil {
			u := *ev.Usage
			ev.Usage = &u
		}
		held = append(held, ev)
		if output(ev.Kind) {
			return held, nil
		}
	}
	return held, stream.Err()
}

// output reports whether an event is something the client sees.
func output(k llm.EventKind) bool {
	return k != llm.EventStart && k != llm.EventUsage && k != llm.EventReplayState
}

// replay yields the held events, then the rest of the stream. Close ends
// the attempt's context too. done, when set, is called once when the
// stream ends or is closed, with the last usage it reported (nil: none).
type replay struct {
	ports.ModelStream
	held   []llm.Event
	cur    llm.Event
	cancel context.CancelCauseFunc
	done   func(*llm.Usage)
	usage  *llm.Usage
}

func (s *replay) Next() bool {
	if len(s.held) > 0 {
		s.cur, s.held = s.held[0], s.held[1:]
	} else if s.ModelStream.Next() {
		s.cur = s.ModelStream.Event()
	} else {
		s.finish()
		return false
	}
	if s.cur.Kind == llm.EventUsage && s.cur.Usage != nil {
		u := *s.cur.Usage
		s.usage = &u
	}
	return true
}

func (s *replay) Event() llm.Event { return s.cur }

func (s *replay) Close() error {
	err := s.ModelStream.Close()
	s.cancel(nil)
	s.finish()
	return err
}

func (s *replay) finish() {
	if s.done != nil {
		done := s.done
		s.done = nil
		done(s.usage)
	}
}
