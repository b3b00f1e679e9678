package agent

import (
	"context"

	"keygate/adapters/cursor/transport"
	agentv1 "keygate/gen/cursor/agent/v1"
)

// inbox moves the turn's client messages from the transport to the turn's
// goroutine (msgs). It reads only between listen and quiesce, so a foreign
// turn's inbox stays untouched. A message it took is always delivered, or
// the turn is over: stopping it never loses one. When the transport's
// inbox fails (not because the inbox was stopped), broken is closed and err
// says why; a waiter for the client then gives up.
type inbox struct {
	from transport.Inbox
	// over is closed when the turn is over.
	over <-chan struct{}
	msgs chan *agentv1.AgentClientMessage
	// broken is closed once a read failed; err is that failure.
	broken chan struct{}
	err    error
	// stop ends the running reader, which closes stopped.
	stop    context.CancelFunc
	stopped chan struct{}
}

func newInbox(from transport.Inbox, over <-chan struct{}) *inbox {
	return &inbox{from: from, over: over, msgs: make(chan *agentv1.AgentClientMessage, 64), broken: make(chan struct{})}
}

// listen starts the reader, which reads until the turn's context ends or
// the reader is stopped.
func (in *inbox) listen(ctx context.Context) {
	reading, cancel := context.WithCancel(ctx)
	in.stop, in.stopped = cancel, make(chan struct{})
	go in.read(ctx, reading, in.stopped)
}

// read reads under reading, a context of the turn's that quiesce and close
// cancel.
func (in *inbox) read(turn, reading context.Context, stopped chan<- struct{}) {
	defer close(stopped)
	for {
		m, err := in.from.Next(reading)
		if err != nil {
			// A reader stopped by quiesce has not seen the inbox fail.
			if reading.Err() == nil || turn.Err() != nil {
				in.fail(err)
			}
			return
		}
		select {
		case in.msgs <- m:
		case <-in.over:
			return
		}
	}
}

// fail records the first read failure. Only one reader runs at a time.
func (in *inbox) fail(err error) {
	select {
	case <-in.broken:
	default:
		in.err = err
		close(in.broken)
	}
}

// quiesce stops the reader and returns the messages it read that nobody
// handled yet; the transport keeps everything after them.
func (in *inbox) quiesce() []*agentv1.AgentClientMessage {
	if in.stop == nil {
		return nil
	}
	in.stop()
	var left []*agentv1.AgentClientMessage
	for {
		select {
		case m := <-in.msgs:
			left = append(left, m)
		case <-in.stopped:
			for {
				select {
				case m := <-in.msgs:
					left = append(left, m)
				default:
					in.stop = nil
					return left
				}
			}
		}
	}
}

// close stops the reader, if any, for good.
func (in *inbox) close() {
	if in.stop != nil {
		in.stop()
	}
}
