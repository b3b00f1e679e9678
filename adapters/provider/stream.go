package provider

import (
	"errors"
	"io"
	"strings"
	"time"

	"keygate/adapters/provider/failure"
	"keygate/adapters/provider/protocol"
	"keygate/adapters/provider/sse"
	"keygate/domain/llm"
)

// stream adapts an SSE body and a protocol decoder to ports.ModelStream and
// keeps the call record in step with what the engine sees.
type stream struct {
	body   io.ReadCloser
	reader protocol.Events
	dec    protocol.Decoder
	label  string

	pending []llm.Event
	pos     int
	cur     llm.Event
	err     error // delivered once pending is drained
	final   bool  // nothing more is read
	done    bool
	closed  bool

	cancel    func(error)
	cause     func() error
	parentErr func() error
	dog       *watchdog
	rec       *recording
	meter     *meter
	apiKey    string
	now       func() time.Time
	sawEvent  bool
	sawText   bool
}

func (s *stream) Next() bool {
	for {
		if s.pos < len(s.pending) {
			s.cur = s.pending[s.pos]
			s.pos++
			s.observe(&s.cur)
			return true
		}
		if s.final {
			s.finish()
			return false
		}
		s.pending, s.pos = s.pending[:0], 0
		ev, err := s.reader.Next()
		switch {
		case errors.Is(err, io.EOF):
			s.pending, s.err = s.dec.End(s.pending)
			s.final = true
		case err != nil:
			s.err = s.readError(err)
			s.final = true
		default:
			if !s.sawEvent {
				s.sawEvent = true
				s.rec.firstEvent(s.now())
			}
			s.rec.event()
			s.pending, s.err = s.dec.Decode(ev, s.pending)
			if s.err != nil || s.dec.Ended() {
				s.final = true
			}
		}
	}
}

// observe updates the record from an event the engine is about to see.
func (s *stream) observe(ev *llm.Event) {
	switch ev.Kind {
	case llm.EventTextDelta:
		if !s.sawText && strings.TrimSpace(ev.Text) != "" {
			s.sawText = true
			s.rec.firstText(s.now())
		}
	case llm.EventUsage:
		s.rec.usage(ev.Usage)
	case llm.EventDone:
		s.done = true
		if ev.Finish == llm.FinishContentFilter {
			s.rec.filtered(s.now(), ev.Filter, s.dec)
			return
		}
		s.rec.complete(s.now(), ev.Finish, s.dec)
	}
}

// finish runs once the last event was delivered: a stream that ended without
// Done and without an error breaks the grammar.
func (s *stream) finish() {
	if s.err == nil && !s.done {
		s.err = failure.Protocol(s.label, "stream ended without Done", nil)
	}
	if s.err != nil {
		s.rec.meta(s.dec)
		s.rec.end(s.now(), s.err)
	}
	s.release()
}

func (s *stream) readError(err error) error {
	switch {
	case errors.Is(err, sse.ErrInvalidUTF8):
		return failure.Protocol(s.label, "SSE UTF-8 error", err)
	case errors.Is(err, sse.ErrLineTooLong):
		return failure.Protocol(s.label, "SSE parse error", err)
	}
	var idle *idleError
	if errors.As(s.cause(), &idle) {
		return failure.Transient(s.label, idle.Error(), idle)
	}
	if perr := s.parentErr(); perr != nil {
		return &cancelled{err: perr}
	}
	if errors.Is(err, io.ErrUnexpectedEOF) {
		return failure.Transient(s.label, "stream disconnected", err)
	}
	return failure.Transient(s.label, "stream read error: "+scrub(err.Error(), s.apiKey), err)
}

func (s *stream) Event() llm.Event { return s.cur }

func (s *stream) Err() error {
	if s.pos < len(s.pending) {
		return nil
	}
	return s.err
}

// Close releases the connection; a call closed before it finished is
// recorded as cancelled.
func (s *stream) Close() error {
	if s.closed {
		return nil
	}
	s.rec.meta(s.dec)
	s.rec.cancel(s.now())
	s.release()
	return nil
}

func (s *stream) release() {
	if s.closed {
		return
	}
	s.closed = true
	s.dog.stop()
	s.cancel(nil)
	s.body.Close()
	s.rec.flush()
}

// cancelled wraps the caller's context error so that errors.Is(err,
// context.Canceled) holds, as the port promises.
type cancelled struct{ err error }

func (c *cancelled) Error() string { return "provider stream read: " + c.err.Error() }
func (c *cancelled) Unwrap() error { return c.err }
