package bidi

import (
	"context"
	"encoding/binary"
	"encoding/json"
	"errors"
	"fmt"
	"io"
	"net/http"
	"strconv"
	"sync"
	"sync/atomic"
	"time"

	"connectrpc.com/connect"
	"go.uber.org/zap"
	"google.golang.org/protobuf/encoding/protowire"
	"google.golang.org/protobuf/proto"

	"keygate/adapters/cursor/frame"
	"keygate/adapters/cursor/transport"
	"keygate/domain/identity"
	aiserverv1 "keygate/gen/cursor/aiserver/v1"
	"keygate/ports"
)

// relayHeaderRoom is what a forwarded append may carry beyond the largest
// request body: the caller's identity and the client's headers (which
// Cursor's upstream needs when the turn is routed there).
const relayHeaderRoom = 1 << 20

// Replicas spreads the HTTP/1.1 routes of one run over several Keygate
// processes behind a round-robin load balancer. Exactly one replica owns a
// run at a time: the first RunSSE of a request id takes its run key's
// lease there (Hold), and the lease lasts as long as the run's transport
// does, whether or not a RunSSE is still attached to it. A BidiAppend that
// reaches a replica not holding the key is forwarded through the
// ports.AppendRelay with the caller's identity and the client's headers,
// and answered once stored. The holder applies a forwarded append to its
// registry exactly as if it had arrived there, under the identity it
// carries; what it can no longer answer (a refused append, Cursor's answer
// for a turn routed upstream) is logged there.
//
// A RunSSE that reaches a replica while another holds the key (the client
// reconnected after a cut, and the balancer chose another replica) is
// served from the output the holder publishes through the relay: every
// frame from the first, in order, then the end of the stream, as a
// RunSSE on the holder would replay it. The holder publishes only while
// such a follower reads, and counts it as a subscriber, so the run is not
// orphaned. When the holder dies its lease expires: a follower ends its
// stream with unavailable, and the client's next request takes the key on
// another replica, which resumes the run from the store (the run's
// provider calls whose output is stored are not made again). A follower
// that read none of the holder's output when the holder let the key go or
// died takes the key itself (RunSSE), so an opening append still waiting
// in the mailbox starts its turn there.
//
// Keys are per caller, so a payload only ever reaches a run of the user
// who sent it: another user's append for the same request id waits in a
// mailbox of its own that no stream of the run's owner takes (and the
// registry's ownership check still stands behind that).
//
// The HTTP/2 Run carries both directions on one stream and needs no relay.
type Replicas struct {
	relay    ports.AppendRelay
	reg      *transport.Registry
	upstream *Upstream
	// linger keeps a key held after its last RunSSE was cut before the
	// run's transport existed here, so appends in flight land on it
	// rather than wait in the mailbox for the client's next RunSSE.
	linger time.Duration
	// poll is how often a holder looks whether a follower reads (in
	// memory: the relay's listener marks the lease watched).
	poll time.Duration
	// followPoll is how often a follower reads the holder's output
	// without a wake from the relay (FollowPoll).
	followPoll time.Duration
	heartbeat  time.Duration
	maxSize    int64
	log        *zap.Logger

	// ctx is the Replicas' own lifetime, not a call's: the goroutines it
	// bounds (applying forwarded appends, publishing for a follower) start
	// from the relay's deliveries and outlive the request that took the
	// key, so they get it as their parameter where they start. Close
	// cancels it (stop).
	ctx  context.Context
	stop context.CancelFunc
	wg   sync.WaitGroup

	mu       sync.Mutex
	held     map[string]*hold
	closed   bool
	draining bool
}

// hold is one leased key and the RunSSE streams attached to it here.
type hold struct {
	key     string
	who     *identity.Identity // the caller, nil for an anonymous one
	id      string             // the request id
	streams int
	ready   chan struct{} // closed once the lease is taken (err says how)
	err     error
	lease   ports.RunLease
	timer   *time.Timer
	waiting bool          // the last stream left while the transport lives
	done    chan struct{} // closed once the lease is released or lost
	queue   [][]byte      // delivered payloads not yet applied
	working bool          // a worker is applying the queue
	pubDone chan struct{} // closed when the publisher stops; nil before it starts
	settled atomic.Bool   // the turn made its first commit (Replicas.settle)
	// opening counts the delivered payloads that may open a turn (append
	// seqno 0), under Replicas.mu.
	opening int
}

// FollowPoll is how often a RunSSE served from another replica's output
// reads it when the relay did not wake it (ports.AppendRelay.Changes): a
// safety net for a missed notification, and how soon a follower sees an
// owner that died (no notification says so) or gone quiet.
const FollowPoll = time.Second

// startPoll is how often a follower that has read none of the owner's
// output yet reads it without a wake.
const startPoll = 200 * time.Millisecond

// holderPoll is how often a holder looks whether a follower reads.
const holderPoll = 200 * time.Millisecond

// NewReplicas relays appends through relay; nil gives a nil *Replicas
// (single process: every append is applied where it arrives). Forwarded
// appends go to reg, or through upstream when their turn is Cursor's.
// maxSize bounds a request body as elsewhere in this package; followPoll
// is how often a follower reads without a wake (zero: FollowPoll).
func NewReplicas(relay ports.AppendRelay, reg *transport.Registry, upstream *Upstream, maxSize int64, followPoll time.Duration, log *zap.Logger) *Replicas {
	if relay == nil {
		return nil
	}
	if maxSize <= 0 {
		maxSize = frame.DefaultMaxSize
	}
	if followPoll <= 0 {
		followPoll = FollowPoll
	}
	ctx, stop := context.WithCancel(context.Background())
	cfg := reg.Config()
	r := &Replicas{
		relay: relay, reg: reg, upstream: upstream, linger: cfg.Linger, poll: holderPoll, followPoll: followPoll, heartbeat: cfg.Heartbeat,
		maxSize: maxSize, log: log, ctx: ctx, stop: stop, held: map[string]*hold{},
	}
	reg.OnCommitted(r.settle)
	return r
}

// Hold makes this replica the owner of the caller's request id (the caller
// on ctx), through its run key's lease, until the last leave and the end
// of the run's transport here; several RunSSEs of one key share it. When
// another replica owns the key, Hold returns a Follower instead, which
// serves the stream from that replica's output. The last leave releases
// the lease at once when its stream reached its end and no transport
// lives here, else once the transport ends, or after a short linger when
// the subscriber was cut before any transport (cut = true). A draining
// replica takes no new key.
func (r *Replicas) Hold(ctx context.Context, requestID string) (leave func(cut bool), follow *Follower, err error) {
	key := relayKey(ctx, requestID)
	r.mu.Lock()
	if r.closed {
		r.mu.Unlock()
		return nil, nil, transport.ErrRegistryClosed
	}
	h := r.held[key]
	switch {
	case h != nil:
		h.streams++
		if h.timer != nil {
			h.timer.Stop()
			h.timer = nil
		}
		h.waiting = false
		r.mu.Unlock()
		<-h.ready
	case r.draining:
		r.mu.Unlock()
		return nil, nil, connect.NewError(connect.CodeUnavailable, transport.ErrDraining)
	default:
		h = &hold{key: key, who: callerOf(ctx), id: requestID, streams: 1, ready: make(chan struct{}), done: make(chan struct{})}
		r.held[key] = h
		r.mu.Unlock()
		// Not cancelled with the stream: a lease row written as its
		// client left would hold the key, unrenewed, until it expires.
		acquiring, cancel := context.WithTimeout(context.WithoutCancel(ctx), requeueTimeout)
		lease, err := r.relay.Acquire(acquiring, key, r.deliverTo(h))
		cancel()
		r.mu.Lock()
		h.lease, h.err = lease, err
		if err == nil && r.closed {
			lease.Release(false) // Close ran meanwhile and did not see this lease
			h.err = transport.ErrRegistryClosed
		}
		if h.err != nil {
			delete(r.held, key)
		} else {
			r.wg.Add(1)
			go r.watch(r.ctx, h)
		}
		close(h.ready)
		r.mu.Unlock()
	}
	switch {
	case errors.Is(h.err, ports.ErrLeaseHeld):
		return nil, &Follower{r: r, key: key, idle: time.Now()}, nil
	case h.err != nil:
		return nil, nil, connect.NewError(connect.CodeUnavailable, h.err)
	}
	var once sync.Once
	return func(cut bool) { once.Do(func() { r.leave(h, cut) }) }, nil, nil
}

func (r *Replicas) leave(h *hold, cut bool) {
	r.mu.Lock()
	defer r.mu.Unlock()
	h.streams--
	if h.streams > 0 || r.held[h.key] != h {
		return
	}
	if live := r.reg.Live(h.caller(), h.id); live != nil {
		// The run goes on without a stream here: the key stays until its
		// transport ends, for the client's next RunSSE on any replica.
		h.waiting = true
		r.wg.Add(1)
		go func(ctx context.Context) {
			defer r.wg.Done()
			select {
			case <-live:
			case <-h.done:
				return
			case <-ctx.Done():
				return
			}
			r.mu.Lock()
			defer r.mu.Unlock()
			if h.waiting && h.streams == 0 && r.held[h.key] == h {
				r.releaseLocked(h, true)
			}
		}(r.ctx)
		return
	}
	switch {
	case !cut:
		r.releaseLocked(h, true)
		return
	case r.draining:
		// No turn starts here any more: the key goes at once, its
		// appends left waiting for the replica the client goes to next.
		r.releaseLocked(h, false)
		return
	}
	h.timer = time.AfterFunc(r.linger, func() {
		r.mu.Lock()
		defer r.mu.Unlock()
		if r.held[h.key] == h && h.streams == 0 {
			r.releaseLocked(h, false)
		}
	})
}

// releaseLocked forgets h here and releases its lease once its publisher
// has published the stream's end (a follower needs it), off the lock.
func (r *Replicas) releaseLocked(h *hold, ended bool) {
	pub := r.forgetLocked(h)
	r.wg.Add(1)
	go func() {
		defer r.wg.Done()
		release(h, pub, ended)
	}()
}

// forgetLocked takes h out of the held keys and stops what waits on it
// here; it returns h's publisher's done channel (nil when none started),
// which the lease's release waits for.
func (r *Replicas) forgetLocked(h *hold) <-chan struct{} {
	delete(r.held, h.key)
	if h.timer != nil {
		h.timer.Stop()
		h.timer = nil
	}
	close(h.done)
	return h.pubDone
}

// release lets h's lease go once its publisher (pub, if any) has stopped.
func release(h *hold, pub <-chan struct{}, ended bool) {
	if pub != nil {
		<-pub
	}
	h.lease.Release(ended)
}

// watch watches h's lease while it is held: when a follower on another
// replica reads the key's output it publishes the run's output and counts
// the follower as a subscriber; when the lease is lost it gives the run
// up here. The publisher it starts runs under ctx.
func (r *Replicas) watch(ctx context.Context, h *hold) {
	defer r.wg.Done()
	tick := time.NewTicker(r.poll)
	defer tick.Stop()
	var detach func()
	defer func() {
		if detach != nil {
			detach()
		}
	}()
	for {
		select {
		case <-h.lease.Lost():
			r.log.Warn("run key lost to another replica; giving the run up here", zap.String("request_id", h.id))
			r.reg.Abandon(h.caller(), h.id)
			r.mu.Lock()
			if r.held[h.key] == h {
				r.forgetLocked(h)
			}
			r.mu.Unlock()
			return
		case <-h.done:
			return
		case <-tick.C:
		}
		if !h.lease.Watched() {
			if detach != nil {
				detach()
				detach = nil
			}
			continue
		}
		if detach == nil {
			detach, _ = r.reg.Watch(h.caller(), h.id)
		}
		r.mu.Lock()
		started := h.pubDone != nil
		r.mu.Unlock()
		if started {
			continue
		}
		if tap := r.reg.Tap(h.caller(), h.id); tap != nil {
			done := make(chan struct{})
			r.mu.Lock()
			h.pubDone = done
			r.mu.Unlock()
			r.wg.Add(1)
			// The publisher outlives this loop: the release waits for it
			// to publish the stream's end. Close stops it.
			go r.publish(ctx, h, tap, done)
		}
	}
}

// publish copies the transport's output to the relay, in batches, until
// its end is published or the lease is stale.
func (r *Replicas) publish(ctx context.Context, h *hold, tap *transport.Subscription, done chan struct{}) {
	defer r.wg.Done()
	defer close(done)
	defer tap.Close()
	for {
		changed := tap.Changed()
		frames, end := tap.Pending()
		if len(frames) > 0 || end != nil {
			if err := h.lease.Publish(ctx, frames, end); err != nil {
				if ctx.Err() == nil {
					r.log.Warn("publishing a run's output for another replica failed; its stream there ends", zap.String("request_id", h.id), zap.Error(err))
				}
				return
			}
		}
		if end != nil {
			return
		}
		select {
		case <-changed:
		case <-h.lease.Lost():
			return
		case <-ctx.Done():
			return
		}
	}
}

// tookOver reports that this replica holds the caller's request id after
// taking it from an owner that died or hung, or after its stream ended
// (a reconnect after another replica answered it that no turn came), not
// from one that let it go or as the first.
// waiting says whether the relay delivered a payload that may open its
// turn when the lease was taken: the appends of a turn that was stored
// before its owner died, delivered without one, open nothing here.
func (r *Replicas) tookOver(ctx context.Context, requestID string) (took, waiting bool) {
	r.mu.Lock()
	h := r.held[relayKey(ctx, requestID)]
	r.mu.Unlock()
	if h == nil {
		return false, false
	}
	<-h.ready
	r.mu.Lock()
	defer r.mu.Unlock()
	return h.lease != nil && h.lease.TookOver(), h.opening > 0
}

// holds reports whether the caller's request id is held here: its appends
// are then applied at once, with their errors answered to the client. A
// key whose lease is being taken counts once it is taken: had another
// replica taken it first, an append applied here would start or feed a
// turn that no stream of the client ever reads.
func (r *Replicas) holds(ctx context.Context, requestID string) bool {
	key := relayKey(ctx, requestID)
	r.mu.Lock()
	h := r.held[key]
	r.mu.Unlock()
	if h == nil {
		return false
	}
	select {
	case <-h.ready:
	case <-ctx.Done():
		return false
	}
	r.mu.Lock()
	defer r.mu.Unlock()
	return r.held[key] == h
}

// handOff lets the caller's request id go from a draining replica, which
// refused an append of it because it starts no turn: once no transport of
// it lives here (a lingering one ends as the drain begins), the lease is
// released without ending the stream, so the appends waiting for the key,
// and the one the caller forwards next, go to the replica that takes it
// next.
func (r *Replicas) handOff(ctx context.Context, requestID string) {
	key := relayKey(ctx, requestID)
	r.mu.Lock()
	h := r.held[key]
	r.mu.Unlock()
	if h == nil {
		return
	}
	<-h.ready
	if live := r.reg.Live(h.caller(), h.id); live != nil {
		wait := time.NewTimer(handOffWait)
		defer wait.Stop()
		select {
		case <-live:
		case <-h.done:
		case <-wait.C:
		}
	}
	r.mu.Lock()
	if r.held[key] != h {
		r.mu.Unlock()
		return
	}
	pub := r.forgetLocked(h)
	r.mu.Unlock()
	// At once, not in the background: the caller forwards the append
	// next, and this replica must not take it again.
	release(h, pub, false)
}

// handOffWait bounds how long a draining replica waits for a request id's
// lingering transport to end before it lets the key go anyway.
const handOffWait = 5 * time.Second

// refused tells an append this replica cannot apply because it drains or
// closes: its turn is to start on another replica.
func refused(err error) bool {
	return errors.Is(err, transport.ErrDraining) || errors.Is(err, transport.ErrRegistryClosed)
}

// opened tells the relay that a turn opened here on a held key, so that
// its appends reaching other replicas are not taken for late ones.
func (r *Replicas) opened(ctx context.Context, requestID string) {
	r.mu.Lock()
	h := r.held[relayKey(ctx, requestID)]
	r.mu.Unlock()
	if h == nil {
		return
	}
	<-h.ready
	if h.lease != nil {
		if err := h.lease.Opened(ctx); err != nil {
			r.log.Warn("marking a run key open failed; appends reaching other replicas may be dropped as late", zap.String("request_id", requestID), zap.Error(err))
		}
	}
}

// keep stores an append that reached the holder of its request id
// directly, before the turn's first commit, in the relay's mailbox as
// taken by the key's lease: the client was answered, so had this replica
// died before the turn was stored the append would be lost with it; kept,
// it goes, in order with the others, to the next replica that takes the
// key (settle drops them once the turn is stored). A failure is logged:
// the turn runs here all the same.
func (r *Replicas) keep(ctx context.Context, req *connect.Request[aiserverv1.BidiAppendRequest], opens bool) {
	id := req.Msg.GetRequestId().GetRequestId()
	r.mu.Lock()
	h := r.held[relayKey(ctx, id)]
	r.mu.Unlock()
	if h == nil {
		return
	}
	<-h.ready
	if h.lease == nil || h.settled.Load() {
		return
	}
	payload, err := encodeForwarded(ctx, req)
	if err == nil {
		err = h.lease.Keep(ctx, relayOwner(ctx), payload, opens)
	}
	if err != nil {
		r.log.Warn("keeping a turn's append for a handover failed; the turn is lost if this replica dies before storing it",
			zap.String("request_id", id), zap.Error(err))
	}
}

// settle lets the relay drop the opening append of the caller's request id
// once its turn made its first commit here: until then the mailbox keeps
// it, so that the replica taking the key after this one died runs the
// turn. Off the turn's goroutine: the turn need not wait for it, and a
// failure only leaves the append to be dropped at the lease's release.
func (r *Replicas) settle(ctx context.Context, requestID string) {
	r.mu.Lock()
	defer r.mu.Unlock()
	h := r.held[relayKey(ctx, requestID)]
	if h == nil || r.closed || h.settled.Swap(true) {
		return
	}
	r.wg.Add(1)
	go func() {
		defer r.wg.Done()
		<-h.ready
		if h.lease == nil {
			return
		}
		settling, cancel := context.WithTimeout(r.ctx, requeueTimeout)
		defer cancel()
		if err := h.lease.Settle(settling); err != nil && settling.Err() == nil {
			r.log.Warn("settling a turn's opening append failed; it goes at the key's release", zap.String("request_id", requestID), zap.Error(err))
		}
	}()
}

// forward stores an agent append for the replica holding its request id.
// An append that arrives after its stream ended is dropped (it belongs to
// no turn), as a late reply is on one replica.
func (r *Replicas) forward(ctx context.Context, req *connect.Request[aiserverv1.BidiAppendRequest], opens bool) error {
	payload, err := encodeForwarded(ctx, req)
	if err != nil {
		return err
	}
	if limit := r.maxSize + relayHeaderRoom; int64(len(payload)) > limit {
		return &frame.TooLargeError{Size: int64(len(payload)), Limit: limit}
	}
	id := req.Msg.GetRequestId().GetRequestId()
	err = r.relay.Forward(ctx, relayOwner(ctx), relayKey(ctx, id), payload, opens)
	switch {
	case err == nil:
		return nil
	case errors.Is(err, ports.ErrLateAppend):
		r.log.Debug("late append after its stream ended dropped", zap.String("request_id", id), zap.Int64("seqno", req.Msg.GetAppendSeqno()))
		return nil
	case errors.Is(err, ports.ErrRelayFull):
		return connect.NewError(connect.CodeResourceExhausted, fmt.Errorf("relay append for request %s: %w", id, err))
	}
	return connect.NewError(connect.CodeUnavailable, fmt.Errorf("relay append for request %s: %w", id, err))
}

// deliverTo queues the payloads of h's key for its worker; it runs on the
// relay's goroutine and must not block.
func (r *Replicas) deliverTo(h *hold) func([]byte) {
	return func(payload []byte) {
		r.mu.Lock()
		defer r.mu.Unlock()
		if r.closed {
			// Taken from the mailbox as Close ran: back into it, for the
			// replica that takes the key next. Not counted in wg, which
			// Close may be waiting on already; requeue is bounded in time.
			go r.requeue(payload)
			return
		}
		if mayOpen(payload) {
			h.opening++
		}
		h.queue = append(h.queue, payload)
		if !h.working {
			h.working = true
			r.wg.Add(1)
			go r.work(r.ctx, h)
		}
	}
}

// work applies a key's payloads in the order the relay delivers them,
// which is the order the client sent them in when it waited for each
// answer (Cursor sees an upstream turn's appends in that order). An append
// that has to wait for its request id's opening append, which may be
// queued behind it when the client sent both at once, lets the next ones
// go, as concurrent requests would.
func (r *Replicas) work(ctx context.Context, h *hold) {
	defer r.wg.Done()
	for {
		r.mu.Lock()
		if len(h.queue) == 0 {
			h.working = false
			r.mu.Unlock()
			return
		}
		payload := h.queue[0]
		h.queue = h.queue[1:]
		r.mu.Unlock()

		done, waiting := make(chan struct{}), make(chan struct{})
		var once sync.Once
		r.wg.Add(1)
		go func() {
			defer r.wg.Done()
			defer close(done)
			err := r.apply(ctx, payload, func() { once.Do(func() { close(waiting) }) })
			switch {
			case refused(err):
				// This replica drains or closes and starts no turn: the
				// append, taken from the mailbox, goes back into it once
				// the key is let go, for the replica the client's next
				// RunSSE reaches. Dropping it would lose a turn the
				// client was told had been received.
				r.requeue(payload)
			case err != nil:
				// The replica that stored it told the client it was
				// received: an operator needs to see the drop.
				r.log.Warn("forwarded append refused here and dropped", zap.Error(err))
			}
		}()
		select {
		case <-done:
		case <-waiting:
		}
	}
}

// mayOpen reports whether a forwarded append may open a turn: its seqno
// is 0 (or it does not parse, and so is not ruled out). It reads only the
// seqno, on the relay's goroutine.
func mayOpen(payload []byte) bool {
	n, w := binary.Uvarint(payload)
	if w <= 0 || n > uint64(len(payload)-w) {
		return true
	}
	msg := payload[w+int(n):]
	for len(msg) > 0 {
		num, typ, l := protowire.ConsumeTag(msg)
		if l < 0 {
			return true
		}
		msg = msg[l:]
		if num == appendSeqnoField && typ == protowire.VarintType {
			v, l := protowire.ConsumeVarint(msg)
			return l < 0 || v == 0
		}
		l = protowire.ConsumeFieldValue(num, typ, msg)
		if l < 0 {
			return true
		}
		msg = msg[l:]
	}
	return true
}

// appendSeqnoField is BidiAppendRequest.append_seqno's field number.
const appendSeqnoField = 3

// requeue puts a forwarded append this replica took but cannot apply back
// into the mailbox, after letting its key go.
func (r *Replicas) requeue(payload []byte) {
	ctx, cancel := context.WithTimeout(context.Background(), requeueTimeout)
	defer cancel()
	ident, req, err := decodeForwarded(ctx, payload)
	if err != nil {
		return
	}
	id := req.Msg.GetRequestId().GetRequestId()
	r.handOff(ident, id)
	msg, _, _ := DecodeAppendData(req.Msg.GetData())
	opens := req.Msg.GetAppendSeqno() == 0 && msg.GetRunRequest() != nil
	if err := r.relay.Forward(ident, relayOwner(ident), relayKey(ident, id), payload, opens); err != nil && !errors.Is(err, ports.ErrLateAppend) {
		r.log.Warn("an append this replica could not apply was not handed over; its turn is lost",
			zap.String("request_id", id), zap.Int64("seqno", req.Msg.GetAppendSeqno()), zap.Error(err))
	}
}

// requeueTimeout bounds handing one append over (the key's release and
// the forward), which may run after Close cancelled everything else.
const requeueTimeout = 10 * time.Second

// apply applies a forwarded append under ctx, with its sender's identity.
func (r *Replicas) apply(ctx context.Context, payload []byte, waiting func()) error {
	ctx, req, err := decodeForwarded(ctx, payload)
	if err != nil {
		return err
	}
	id := req.Msg.GetRequestId().GetRequestId()
	msg, raw, ok := DecodeAppendData(req.Msg.GetData())
	if !ok {
		return fmt.Errorf("request %s: %w", id, ErrNotAgentMessage)
	}
	parent, err := parentFrom(req.Header())
	if err == nil {
		_, err = appendAgent(ctx, r.reg, r.upstream, req,
			transport.Append{RequestID: id, Seqno: req.Msg.GetAppendSeqno(), Message: msg, Raw: raw, Parent: parent, Waiting: waiting})
	}
	if err != nil {
		return fmt.Errorf("request %s append %d: %w", id, req.Msg.GetAppendSeqno(), err)
	}
	return nil
}

// Drain makes this replica take no new key: a RunSSE for a request id it
// does not hold is refused with unavailable, so the client reconnects to
// another replica. The keys it holds stay until their runs end or Close.
func (r *Replicas) Drain() {
	r.mu.Lock()
	defer r.mu.Unlock()
	r.draining = true
}

// Close stops taking appends and hands the keys held here over: each
// lease is released without ending its stream, so the appends waiting for
// the key stay for the replica that takes it next. It waits for the
// appends being applied, which the cancelled context ends promptly.
func (r *Replicas) Close() {
	r.mu.Lock()
	r.closed = true
	held := r.held
	r.held = map[string]*hold{}
	r.mu.Unlock()
	r.stop()
	for _, h := range held {
		<-h.ready
		r.mu.Lock()
		if h.timer != nil {
			h.timer.Stop()
		}
		select {
		case <-h.done:
		default:
			close(h.done)
		}
		r.mu.Unlock()
		if h.lease != nil {
			h.lease.Release(false)
		}
	}
	r.wg.Wait()
}

// Follower serves a RunSSE from the output another replica publishes for
// the run it owns (see Replicas).
type Follower struct {
	r       *Replicas
	key     string
	after   int64
	token   int64
	pending [][]byte
	end     []byte
	sentEnd bool
	idle    time.Time // last frame written
	// wake is the relay's signal that the key's output changed (nil until
	// the first read); stop ends it (Close).
	wake <-chan struct{}
	stop func()
}

// Close stops the follower's watch of the key's output.
func (f *Follower) Close() {
	if f.stop != nil {
		f.stop()
	}
}

// ErrOwnerGone ends a followed stream whose owner stopped before its end:
// the client sends its turn again, and the replica that takes the key
// resumes the run from the store.
var ErrOwnerGone = errors.New("the replica running this turn stopped; send the turn again to resume it")

// errOwnerLeft: the key's owner is gone before this follower read any of
// its output, so the stream can become the key's owner (see Next).
var errOwnerLeft = errors.New("the run key's owner left before publishing any output")

// Next returns the next frame: the owner's output in order, heartbeats
// while idle, then the end of the stream; then io.EOF. When the owner is
// gone before any of its output was read, it returns errOwnerLeft instead,
// and the caller may take the key (Hold again). It reads the owner's
// output when the relay wakes it, and every followPoll without a wake.
func (f *Follower) Next(ctx context.Context) ([]byte, error) {
	if f.wake == nil {
		// Before the first read, so that output published after it
		// wakes this follower.
		f.wake, f.stop = f.r.relay.Changes(f.key)
	}
	for {
		switch {
		case len(f.pending) > 0:
			out := f.pending[0]
			f.pending = f.pending[1:]
			f.idle = time.Now()
			return out, nil
		case f.sentEnd:
			return nil, io.EOF
		case f.end != nil:
			f.sentEnd = true
			return f.end, nil
		}
		page, err := f.r.relay.Follow(ctx, f.key, f.after)
		switch {
		case ctx.Err() != nil:
			return nil, ctx.Err()
		case err != nil:
			f.r.log.Warn("reading another replica's output failed; retrying", zap.Error(err))
		case f.token != 0 && page.Token != f.token,
			len(page.Frames) == 0 && page.End == nil && !page.Held:
			if f.after == 0 {
				// Nothing of the owner's output reached this stream: the
				// owner let the key go before its turn started (it
				// drains) or died before publishing. The stream may take
				// the key itself, with the appends waiting for it.
				return nil, errOwnerLeft
			}
			f.end = frame.EndFrame(connect.NewError(connect.CodeUnavailable, ErrOwnerGone))
			continue
		default:
			f.token = page.Token
			f.pending, f.after, f.end = page.Frames, page.Last, page.End
			if len(f.pending) > 0 || f.end != nil {
				continue
			}
		}
		quiet := time.Since(f.idle)
		if quiet >= f.r.heartbeat {
			f.idle = time.Now()
			return transport.HeartbeatFrame(), nil
		}
		poll := f.r.followPoll
		if f.after == 0 {
			// None of the owner's output yet: a live owner publishes at
			// once, so one that does not may have died, which no
			// notification says; the stream takes the key sooner.
			poll = min(poll, startPoll)
		}
		wait := time.NewTimer(min(poll, f.r.heartbeat-quiet))
		select {
		case <-ctx.Done():
			wait.Stop()
			return nil, ctx.Err()
		case <-f.wake:
		case <-wait.C:
		}
		wait.Stop()
	}
}

// Ready reports whether Next has a frame to return without reading the
// relay: one of the page it read last, or the end.
func (f *Follower) Ready() bool { return len(f.pending) > 0 || (f.end != nil && !f.sentEnd) }

// callerOf is the identity ctx carries, or nil.
func callerOf(ctx context.Context) *identity.Identity {
	if id, ok := identity.FromContext(ctx); ok {
		return &id
	}
	return nil
}

// caller is a context that carries h's caller and nothing else, for the
// registry, which looks a caller's transports up by the identity on the
// context it is given.
func (h *hold) caller() context.Context {
	if h.who == nil {
		return context.Background()
	}
	return identity.NewContext(context.Background(), *h.who)
}

// relayKey names the mailbox of one caller's request id. The user id is
// length-prefixed so no pair of (user, request id) shares a key; an
// anonymous caller (an adapter without the proxy in front) has its own.
func relayKey(ctx context.Context, requestID string) string {
	id, ok := identity.FromContext(ctx)
	if !ok {
		return "-/" + requestID
	}
	return strconv.Itoa(len(id.UserID)) + ":" + id.UserID + "/" + requestID
}

// relayOwner names whose the appends forwarded under ctx are, for the
// relay's bounds: the caller's user id, or "" for an anonymous caller.
func relayOwner(ctx context.Context) string {
	id, _ := identity.FromContext(ctx)
	return id.UserID
}

// forwarded is what travels with an append besides its message.
type forwarded struct {
	UserID string      `json:"user_id,omitempty"`
	Name   string      `json:"name,omitempty"`
	Known  bool        `json:"known,omitempty"`
	Header http.Header `json:"header,omitempty"`
}

// encodeForwarded lays out a forwarded append: the uvarint length of the
// JSON-encoded caller and headers, them, then the BidiAppendRequest as
// protobuf (unknown fields kept, for Cursor).
func encodeForwarded(ctx context.Context, req *connect.Request[aiserverv1.BidiAppendRequest]) ([]byte, error) {
	f := forwarded{Header: http.Header{}}
	if id, ok := identity.FromContext(ctx); ok {
		f.UserID, f.Name, f.Known = id.UserID, id.Name, true
	}
	copyHeader(f.Header, req.Header())
	meta, err := json.Marshal(f)
	if err != nil {
		return nil, fmt.Errorf("encode forwarded append: %w", err)
	}
	msg, err := proto.Marshal(req.Msg)
	if err != nil {
		return nil, fmt.Errorf("encode forwarded append: %w", err)
	}
	out := binary.AppendUvarint(make([]byte, 0, binary.MaxVarintLen64+len(meta)+len(msg)), uint64(len(meta)))
	out = append(out, meta...)
	return append(out, msg...), nil
}

// errBadForward: a relay payload that encodeForwarded did not write.
var errBadForward = errors.New("malformed forwarded append")

// decodeForwarded rebuilds the request and a context under ctx that
// carries the sender's identity.
func decodeForwarded(ctx context.Context, payload []byte) (context.Context, *connect.Request[aiserverv1.BidiAppendRequest], error) {
	n, w := binary.Uvarint(payload)
	if w <= 0 || n > uint64(len(payload)-w) {
		return nil, nil, errBadForward
	}
	var f forwarded
	if err := json.Unmarshal(payload[w:w+int(n)], &f); err != nil {
		return nil, nil, fmt.Errorf("%w: %w", errBadForward, err)
	}
	var msg aiserverv1.BidiAppendRequest
	if err := proto.Unmarshal(payload[w+int(n):], &msg); err != nil {
		return nil, nil, fmt.Errorf("%w: %w", errBadForward, err)
	}
	req := connect.NewRequest(&msg)
	for k, vs := range f.Header {
		req.Header()[k] = vs
	}
	if f.Known {
		ctx = identity.NewContext(ctx, identity.Identity{UserID: f.UserID, Name: f.Name})
	}
	return ctx, req, nil
}
