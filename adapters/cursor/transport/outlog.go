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
//
// Frames are packed back to back into chunks (a few bytes of header and a
// small payload per token would otherwise each be an allocation of their
// own plus a slice header): a filled chunk is never written again, so a
// frame handed to a subscriber stays valid.
//
// A slow subscriber holds the writer back: while the slowest connected
// subscriber is more than maxAhead bytes behind, append waits (up to
// maxWait, after which the log stops waiting for the rest of the stream),
// so the run reads its provider no further ahead of the client than the
// bound. Without a subscriber nothing waits: the run goes on for the
// orphan grace as before, and a reconnecting client gets the whole replay.
type outlog struct {
	mu     sync.Mutex
	chunks [][]byte
	frames []frameRef
	size   int64 // bytes appended
	end    []byte
	pulses uint64        // heartbeat requests so far
	wake   chan struct{} // closed and replaced on a change when sleepers > 0
	// sleepers took wake to wait on since it was last replaced.
	sleepers int

	maxAhead int64
	maxWait  time.Duration
	// read is how far each connected subscriber has read; room is closed
	// and replaced when one advances or leaves while a writer waits.
	read      map[*Subscription]int64
	room      chan struct{}
	waiting   int
	unbounded bool
	// small is the chunk small frames go to (-1: none yet); compacted
	// says the finished stream's moot frames are gone.
	small     int
	compacted bool
}

// frameRef locates one frame in the chunks. moot marks a frame a finished
// stream's replay leaves out: a KV request (see compactLocked).
type frameRef struct {
	chunk, off, n uint32
	moot          bool
}

// Chunk sizes: a stream's first chunk of small frames is small, later ones
// double up to maxChunk; a frame over bigFrame (a KV blob, a checkpoint)
// gets a chunk of its own, exactly its size, so that it wastes no tail and
// can be dropped alone.
const (
	minChunk = 2 << 10
	maxChunk = 64 << 10
	bigFrame = 1 << 10
)

func newOutlog(maxAhead int64, maxWait time.Duration) *outlog {
	return &outlog{wake: make(chan struct{}), room: make(chan struct{}), read: map[*Subscription]int64{},
		maxAhead: maxAhead, maxWait: maxWait, small: -1}
}

func (l *outlog) changedLocked() {
	// Subscribers busy writing will look at the log again anyway: only
	// those that took the current channel to wait on need it closed, which
	// spares a channel per frame while the client keeps up.
	if l.sleepers > 0 {
		close(l.wake)
		l.wake = make(chan struct{})
		l.sleepers = 0
	}
}

// behindLocked is how far the slowest connected subscriber is behind.
func (l *outlog) behindLocked() int64 {
	var most int64
	for _, r := range l.read {
		most = max(most, l.size-r)
	}
	return most
}

// appendPayload adds one frame with payload; ErrTurnOver once the stream
// has ended. moot frames are left out of a finished stream's replay.
func (l *outlog) appendPayload(payload []byte, moot bool) error {
	l.mu.Lock()
	defer l.mu.Unlock()
	if !l.unbounded && l.end == nil && l.behindLocked() > l.maxAhead {
		timeout := time.NewTimer(l.maxWait)
		for !l.unbounded && l.end == nil && l.behindLocked() > l.maxAhead {
			room := l.room
			l.waiting++
			l.mu.Unlock()
			select {
			case <-room:
			case <-timeout.C:
				l.unbounded = true
			}
			l.mu.Lock()
			l.waiting--
		}
		timeout.Stop()
	}
	if l.end != nil {
		return ErrTurnOver
	}
	n := frame.HeaderSize + len(payload)
	l.frames = append(l.frames, l.storeLocked(payload, n, moot))
	l.size += int64(n)
	l.changedLocked()
	return nil
}

// storeLocked packs one frame of n bytes into the chunks.
func (l *outlog) storeLocked(payload []byte, n int, moot bool) frameRef {
	if n > bigFrame {
		l.chunks = append(l.chunks, frame.Append(make([]byte, 0, n), 0, payload))
		return frameRef{chunk: uint32(len(l.chunks) - 1), n: uint32(n), moot: moot}
	}
	if l.small < 0 || cap(l.chunks[l.small])-len(l.chunks[l.small]) < n {
		size := minChunk
		if l.small >= 0 {
			size = min(2*cap(l.chunks[l.small]), maxChunk)
		}
		l.chunks = append(l.chunks, make([]byte, 0, size))
		l.small = len(l.chunks) - 1
	}
	off := len(l.chunks[l.small])
	l.chunks[l.small] = frame.Append(l.chunks[l.small], 0, payload)
	return frameRef{chunk: uint32(l.small), off: uint32(off), n: uint32(n), moot: moot}
}

// compactLocked drops the moot frames of a finished stream once every
// connected subscriber has read it to its end, so that the 60 s a finished
// stream stays replayable (Config.Retain) do not keep the KV blobs it
// carried: every blob a published checkpoint names was acknowledged by the
// client before the checkpoint went out, a blob no checkpoint names is of
// no use, and a reply to a KV request after the turn is dropped anyway. A
// later (re)subscriber gets every other frame, in order.
func (l *outlog) compactLocked() {
	if l.end == nil || l.compacted {
		return
	}
	for s := range l.read {
		if !s.sentEnd {
			return
		}
	}
	l.compacted = true
	old, frames := l.chunks, l.frames
	l.chunks, l.frames, l.small = nil, nil, -1
	for _, f := range frames {
		if f.moot {
			continue
		}
		b := old[f.chunk][f.off : f.off+f.n]
		l.frames = append(l.frames, l.storeLocked(b[frame.HeaderSize:], len(b), false))
	}
}

// frameLocked returns frame i; its bytes are never written again.
func (l *outlog) frameLocked(i int) []byte {
	f := l.frames[i]
	return l.chunks[f.chunk][f.off : f.off+f.n : f.off+f.n]
}

// advancedLocked records that s has read n more bytes.
func (l *outlog) advancedLocked(s *Subscription, n int) {
	if _, ok := l.read[s]; !ok {
		return
	}
	l.read[s] += int64(n)
	l.roomLocked()
}

// roomLocked wakes the writers waiting for a subscriber to catch up.
func (l *outlog) roomLocked() {
	if l.waiting > 0 {
		close(l.room)
		l.room = make(chan struct{})
	}
}

// leave forgets s's position: a subscriber that left holds no one back.
func (l *outlog) leave(s *Subscription) {
	l.mu.Lock()
	defer l.mu.Unlock()
	delete(l.read, s)
	l.roomLocked()
	l.compactLocked()
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

// finish writes the end-of-stream frame; only the first call counts. A
// writer waiting for room gives up then.
func (l *outlog) finish(end []byte) {
	l.mu.Lock()
	defer l.mu.Unlock()
	if l.end == nil {
		l.end = end
		l.changedLocked()
		l.roomLocked()
		l.compactLocked()
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
	once      sync.Once
}

func (l *outlog) subscribe(t *Transport, heartbeat time.Duration, release func()) *Subscription {
	l.mu.Lock()
	defer l.mu.Unlock()
	s := &Subscription{t: t, log: l, heartbeat: heartbeat, pulses: l.pulses}
	s.release = func() { l.leave(s); release() }
	l.read[s] = 0
	return s
}

// Next returns the next encoded frame to write: a logged frame, a heartbeat
// (asked for by a client heartbeat, or after Config.Heartbeat without
// output), or finally the end-of-stream frame; then io.EOF. It returns ctx's
// error when ctx is done first.
func (s *Subscription) Next(ctx context.Context) ([]byte, error) {
	// The idle timer starts at the first wait: a subscriber keeping up
	// gets its frame without one (a timer per frame otherwise).
	var idle *time.Timer
	for {
		l := s.log
		l.mu.Lock()
		switch {
		case s.cursor < len(l.frames):
			f := l.frameLocked(s.cursor)
			s.cursor++
			l.advancedLocked(s, len(f))
			l.mu.Unlock()
			return f, nil
		case s.sentEnd:
			l.mu.Unlock()
			return nil, io.EOF
		case l.end != nil:
			s.sentEnd = true
			l.compactLocked()
			l.mu.Unlock()
			return l.end, nil
		case l.pulses > s.pulses:
			s.pulses = l.pulses
			l.mu.Unlock()
			return heartbeatFrame, nil
		}
		wake := l.wake
		l.sleepers++
		l.mu.Unlock()
		if idle == nil {
			idle = time.NewTimer(s.heartbeat)
			defer idle.Stop()
		}
		select {
		case <-ctx.Done():
			return nil, ctx.Err()
		case <-idle.C:
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
	if n := len(l.frames) - s.cursor; n > 0 {
		frames = make([][]byte, 0, n)
		read := 0
		for ; s.cursor < len(l.frames); s.cursor++ {
			f := l.frameLocked(s.cursor)
			frames = append(frames, f)
			read += len(f)
		}
		l.advancedLocked(s, read)
	}
	if l.end != nil && !s.sentEnd {
		s.sentEnd = true
		end = l.end
		l.compactLocked()
	}
	return frames, end
}

// Changed is closed when the log changes after this call.
func (s *Subscription) Changed() <-chan struct{} {
	l := s.log
	l.mu.Lock()
	defer l.mu.Unlock()
	l.sleepers++ // the log closes wake only for those waiting on it
	return l.wake
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
