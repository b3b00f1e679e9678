package transport

import (
	"context"
	"io"
	"sync"
	"time"

	"connectrpc.com/connect"
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

// lostFrame ends the stream of a subscriber that attached after the
// replay was released (ErrReplayLost).
var lostFrame = frame.EndFrame(connect.NewError(connect.CodeUnavailable, ErrReplayLost))

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
//
// The replay is bounded: once the stream has sent more than maxReplay
// bytes it is lost (no later subscriber can have it from the start), and
// the frames every connected subscriber has read are released as they go.
// An ended stream its subscribers read to its end keeps its replay for
// afterEnd (longer while a resubscriber that waits to fall back on it
// pins it), then releases it. A subscriber that attaches to a lost
// stream gets lostFrame and nothing else.
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

	maxReplay int64
	afterEnd  time.Duration
	// base is the number of frames released from the head: frames[0] is
	// frame number base. lastOf is, per chunk, the number of its last
	// frame; chunks before floor are all released.
	base, floor int
	lastOf      []int
	// lost: the head is gone or going, a new subscriber gets lostFrame.
	lost bool
	// pins are the resubscribers waiting to fall back on the ended
	// stream; endTimer says the after-end wait started, expired that it
	// is over.
	pins              int
	endTimer, expired bool
}

// frameRef locates one frame in the chunks. moot marks a frame a finished
// stream's replay leaves out: a KV request (see compactLocked).
type frameRef struct {
	chunk, off, n uint32
	moot          bool
}

// trimBatch is how many read frames a lost stream lets gather before it
// releases them (one pass over the chunks per batch, not per frame).
const trimBatch = 64

// Chunk sizes: a stream's first chunk of small frames is small, later ones
// double up to maxChunk; a frame over bigFrame (a KV blob, a checkpoint)
// gets a chunk of its own, exactly its size, so that it wastes no tail and
// can be dropped alone.
const (
	minChunk = 2 << 10
	maxChunk = 64 << 10
	bigFrame = 1 << 10
)

func newOutlog(maxAhead int64, maxWait time.Duration, maxReplay int64, afterEnd time.Duration) *outlog {
	return &outlog{wake: make(chan struct{}), room: make(chan struct{}), read: map[*Subscription]int64{},
		maxAhead: maxAhead, maxWait: maxWait, small: -1, maxReplay: maxReplay, afterEnd: afterEnd}
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
	if l.size > l.maxReplay {
		l.lost = true
	}
	l.trimLocked(false)
	l.changedLocked()
	return nil
}

// trimLocked releases, once the stream is lost, the frames every
// connected subscriber has read (all of them when none is connected): in
// batches, or whatever there is when all is set.
func (l *outlog) trimLocked(all bool) {
	if !l.lost {
		return
	}
	upto := l.base + len(l.frames)
	for s := range l.read {
		upto = min(upto, s.cursor)
	}
	n := upto - l.base
	if n <= 0 || (!all && n < trimBatch) {
		return
	}
	for c := l.floor; c < len(l.chunks); c++ {
		if l.chunks[c] != nil && l.lastOf[c] < upto {
			if c == l.small {
				l.small = -1
			}
			l.chunks[c] = nil
		}
	}
	for l.floor < len(l.chunks) && l.chunks[l.floor] == nil {
		l.floor++
	}
	rest := len(l.frames) - n
	if cap(l.frames) > 4*rest+256 {
		l.frames = append([]frameRef(nil), l.frames[n:]...)
	} else {
		copy(l.frames, l.frames[n:])
		l.frames = l.frames[:rest]
	}
	l.base = upto
}

// endReadLocked is called when a subscriber has read the end: the
// after-end wait starts (once), after which the replay goes.
func (l *outlog) endReadLocked() {
	if l.endTimer {
		l.releaseLocked()
		return
	}
	l.endTimer = true
	time.AfterFunc(l.afterEnd, func() {
		l.mu.Lock()
		defer l.mu.Unlock()
		l.expired = true
		l.releaseLocked()
	})
}

// releaseLocked drops an ended stream's replay once the after-end wait is
// over, no resubscriber pins it and every connected subscriber has read
// it to its end.
func (l *outlog) releaseLocked() {
	if l.end == nil || !l.expired || l.pins > 0 {
		return
	}
	for s := range l.read {
		if !s.sentEnd {
			return
		}
	}
	l.lost = true
	l.trimLocked(true)
}

// pin keeps an ended stream's replay for a resubscriber that waits to
// fall back on it; unpin lets it go.
func (l *outlog) pin() {
	l.mu.Lock()
	defer l.mu.Unlock()
	l.pins++
}

func (l *outlog) unpin() {
	l.mu.Lock()
	defer l.mu.Unlock()
	l.pins--
	l.releaseLocked()
}

// held is the bytes the log's chunks hold now.
func (l *outlog) held() int64 {
	l.mu.Lock()
	defer l.mu.Unlock()
	var n int64
	for _, c := range l.chunks {
		n += int64(cap(c))
	}
	return n
}

// storeLocked packs one frame of n bytes into the chunks.
func (l *outlog) storeLocked(payload []byte, n int, moot bool) frameRef {
	num := l.base + len(l.frames)
	if n > bigFrame {
		l.chunks = append(l.chunks, frame.Append(make([]byte, 0, n), 0, payload))
		l.lastOf = append(l.lastOf, num)
		return frameRef{chunk: uint32(len(l.chunks) - 1), n: uint32(n), moot: moot}
	}
	if l.small < 0 || cap(l.chunks[l.small])-len(l.chunks[l.small]) < n {
		size := minChunk
		if l.small >= 0 {
			size = min(2*cap(l.chunks[l.small]), maxChunk)
		}
		l.chunks = append(l.chunks, make([]byte, 0, size))
		l.lastOf = append(l.lastOf, num)
		l.small = len(l.chunks) - 1
	}
	l.lastOf[l.small] = num
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
	if l.end == nil || l.compacted || l.lost {
		return
	}
	for s := range l.read {
		if !s.sentEnd {
			return
		}
	}
	l.compacted = true
	old, frames := l.chunks, l.frames
	l.chunks, l.frames, l.lastOf, l.small = nil, nil, nil, -1
	for _, f := range frames {
		if f.moot {
			continue
		}
		b := old[f.chunk][f.off : f.off+f.n]
		l.frames = append(l.frames, l.storeLocked(b[frame.HeaderSize:], len(b), false))
	}
}

// frameLocked returns frame number i; its bytes are never written again.
func (l *outlog) frameLocked(i int) []byte {
	f := l.frames[i-l.base]
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
	l.trimLocked(true)
	l.releaseLocked()
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
		l.trimLocked(true)
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
	// lost: it attached after the replay was released; it gets lostFrame.
	lost bool
	once sync.Once
}

func (l *outlog) subscribe(t *Transport, heartbeat time.Duration, release func()) *Subscription {
	l.mu.Lock()
	defer l.mu.Unlock()
	s := &Subscription{t: t, log: l, heartbeat: heartbeat, pulses: l.pulses, lost: l.lost}
	s.release = func() { l.leave(s); release() }
	if !s.lost {
		l.read[s] = 0
	}
	return s
}

// Ready reports whether Next has a frame to return without waiting: a
// logged frame not read yet, the end-of-stream frame, the lost frame or a
// heartbeat a client heartbeat asked for. A writer that batches frames
// flushes when it turns false.
func (s *Subscription) Ready() bool {
	l := s.log
	l.mu.Lock()
	defer l.mu.Unlock()
	if s.lost || s.sentEnd {
		return !s.sentEnd
	}
	return s.cursor < l.base+len(l.frames) || l.end != nil || l.pulses > s.pulses
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
		case s.lost && s.sentEnd:
			l.mu.Unlock()
			return nil, io.EOF
		case s.lost:
			s.sentEnd = true
			l.mu.Unlock()
			return lostFrame, nil
		case s.cursor < l.base+len(l.frames):
			f := l.frameLocked(s.cursor)
			s.cursor++
			l.advancedLocked(s, len(f))
			l.trimLocked(false)
			l.mu.Unlock()
			return f, nil
		case s.sentEnd:
			l.mu.Unlock()
			return nil, io.EOF
		case l.end != nil:
			s.sentEnd = true
			l.compactLocked()
			l.trimLocked(true)
			l.endReadLocked()
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
	if s.lost {
		if !s.sentEnd {
			s.sentEnd = true
			end = lostFrame
		}
		return nil, end
	}
	if n := l.base + len(l.frames) - s.cursor; n > 0 {
		frames = make([][]byte, 0, n)
		read := 0
		for ; s.cursor < l.base+len(l.frames); s.cursor++ {
			f := l.frameLocked(s.cursor)
			frames = append(frames, f)
			read += len(f)
		}
		l.advancedLocked(s, read)
		l.trimLocked(false)
	}
	if l.end != nil && !s.sentEnd {
		s.sentEnd = true
		end = l.end
		l.compactLocked()
		l.trimLocked(true)
		l.endReadLocked()
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
