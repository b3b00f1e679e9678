package transport

import (
	"context"
	"io"
	"sync"
	"time"

	"google.golang.org/protobuf/proto"

	"keygate/adapters/cursor/frame"
	agentv1 "keygate/gen/cursor/agent/v1"
)

// heartbeatFrame is the encoded interaction_update.heartbeat. Heartbeats go
// to the subscribers connected at the time and are not kept in the log: a
// replay has no use for them.
var heartbeatFrame = func() []byte {
	b, err := proto.Marshal(&agentv1.AgentServerMessage{Message: &agentv1.AgentServerMessage_InteractionUpdate{
		InteractionUpdate: &agentv1.InteractionUpdate{Message: &agentv1.InteractionUpdate_Heartbeat{Heartbeat: &agentv1.HeartbeatUpdate{}}},
	}})
	if err != nil {
		panic(err)
	}
	return frame.Encode(0, b)
}()

// HeartbeatFrame is the encoded interaction_update.heartbeat a stream sends
// while idle.
func HeartbeatFrame() []byte { return heartbeatFrame }

// outlog is the replayable output of one transport: every frame sent so far,
// then the end-of-stream frame. Subscribers read it from the start.
type outlog struct {
	mu     sync.Mutex
	frames [][]byte
	end    []byte
	pulses uint64        // heartbeat requests so far
	wake   chan struct{} // closed and replaced on every change
}

func newOutlog() *outlog { return &outlog{wake: make(chan struct{})} }

func (l *outlog) changedLocked() {
	close(l.wake)
	l.wake = make(chan struct{})
}

// append adds one encoded frame; ErrTurnOver once the stream has ended.
func (l *outlog) append(f []byte) error {
	l.mu.Lock()
	defer l.mu.Unlock()
	if l.end != nil {
		return ErrTurnOver
	}
	l.frames = append(l.frames, f)
	l.changedLocked()
	return nil
}

// pulse asks every connected subscriber for one heartbeat.
func (l *outlog) pulse() {
	l.mu.Lock()
	defer l.mu.Unlock()
	if l.end == nil {
		l.pulses++
		l.changedLocked()
	}
}

// finish writes the end-of-stream frame; only the first call counts.
func (l *outlog) finish(end []byte) {
	l.mu.Lock()
	defer l.mu.Unlock()
	if l.end == nil {
		l.end = end
		l.changedLocked()
	}
}

// Subscription reads one transport's output from the first frame on.
type Subscription struct {
	t         *Transport
	log       *outlog
	release   func()
	heartbeat time.Duration
	cursor    int
	pulses    uint64
	sentEnd   bool
	quiet     bool // no heartbeats: a tap publishing the log elsewhere
	once      sync.Once
}

func (l *outlog) subscribe(t *Transport, heartbeat time.Duration, release func()) *Subscription {
	l.mu.Lock()
	defer l.mu.Unlock()
	return &Subscription{t: t, log: l, release: release, heartbeat: heartbeat, pulses: l.pulses}
}

// Next returns the next encoded frame to write: a logged frame, a heartbeat
// (asked for by a client heartbeat, or after Config.Heartbeat without
// output), or finally the end-of-stream frame; then io.EOF. It returns ctx's
// error when ctx is done first.
func (s *Subscription) Next(ctx context.Context) ([]byte, error) {
	idle := time.NewTimer(s.heartbeat)
	defer idle.Stop()
	for {
		l := s.log
		l.mu.Lock()
		switch {
		case s.cursor < len(l.frames):
			f := l.frames[s.cursor]
			s.cursor++
			l.mu.Unlock()
			return f, nil
		case s.sentEnd:
			l.mu.Unlock()
			return nil, io.EOF
		case l.end != nil:
			s.sentEnd = true
			l.mu.Unlock()
			return l.end, nil
		case l.pulses > s.pulses && !s.quiet:
			s.pulses = l.pulses
			l.mu.Unlock()
			return heartbeatFrame, nil
		}
		wake := l.wake
		l.mu.Unlock()
		idleC := idle.C
		if s.quiet {
			idleC = nil
		}
		select {
		case <-ctx.Done():
			return nil, ctx.Err()
		case <-idleC:
			return heartbeatFrame, nil
		case <-wake:
		}
	}
}

// Pending returns the logged frames s has not read yet, the end-of-stream
// frame when the stream has ended and they are all, and advances past
// them without waiting: a tap publishes them in batches.
func (s *Subscription) Pending() (frames [][]byte, end []byte) {
	l := s.log
	l.mu.Lock()
	defer l.mu.Unlock()
	frames = l.frames[s.cursor:len(l.frames):len(l.frames)]
	s.cursor = len(l.frames)
	if l.end != nil && !s.sentEnd {
		s.sentEnd = true
		end = l.end
	}
	return frames, end
}

// Changed is closed when the log changes after this call.
func (s *Subscription) Changed() <-chan struct{} {
	s.log.mu.Lock()
	defer s.log.mu.Unlock()
	return s.log.wake
}

// Close detaches the subscriber; the last one to leave starts the orphan
// grace. Safe to call more than once.
func (s *Subscription) Close() { s.once.Do(s.release) }

// CloseUplink tells the subscribed transport that the client's uplink ended
// (the HTTP/2 Run request body closed or broke). With err == nil a finished
// turn ends the stream with success at once and a running turn is cancelled
// (end-of-stream canceled); with err != nil the running turn is cancelled and
// the stream ends with err.
func (s *Subscription) CloseUplink(err error) { s.t.closeUplink(err) }
