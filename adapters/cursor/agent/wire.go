package agent

import (
	"errors"
	"fmt"

	"keygate/adapters/cursor/transport"
	agentv1 "keygate/gen/cursor/agent/v1"
)

// errStreamLost marks a turn whose client stream is gone: a send failed.
var errStreamLost = errors.New("client stream lost")

// wire is the turn's only way to send to the client. Its first send failure
// is sticky and decided here alone: once a send fails the client's stream
// is gone (the transport ended it, or the turn is over), so wire sends
// nothing more, every later send returns that failure at once, and lost is
// closed so that the turn stops (serve and every wait select on it). Only
// the turn's goroutine sends. Wire ids are handed out as the transport
// does; they are not output.
type wire struct {
	out transport.Output
	err error
	// lost is closed at the first failed send.
	lost chan struct{}
}

func newWire(out transport.Output) *wire {
	return &wire{out: out, lost: make(chan struct{})}
}

// send sends msgs in order and returns the sticky failure, if any; after
// it, nothing is sent.
func (w *wire) send(msgs ...*agentv1.AgentServerMessage) error {
	for _, m := range msgs {
		if w.err != nil {
			break
		}
		if err := w.out.Send(m); err != nil {
			w.err = fmt.Errorf("%w: %w", errStreamLost, err)
			close(w.lost)
		}
	}
	return w.err
}

// emit sends msgs like send, for a caller with nothing to do on a failure:
// the failure is sticky and ends the turn, so it need not look.
func (w *wire) emit(msgs ...*agentv1.AgentServerMessage) { _ = w.send(msgs...) }

// failed returns the sticky failure, or nil while the stream is up.
func (w *wire) failed() error { return w.err }

func (w *wire) execID() (uint32, error)        { return w.out.NextExecID() }
func (w *wire) interactionID() (uint32, error) { return w.out.NextInteractionID() }
func (w *wire) kvID() (uint32, error)          { return w.out.NextKvID() }
