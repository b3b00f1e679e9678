package bidi

import (
	"context"
	"encoding/binary"
	"encoding/json"
	"errors"
	"fmt"
	"net/http"
	"strconv"
	"sync"
	"time"

	"connectrpc.com/connect"
	"go.uber.org/zap"
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
// processes behind a round-robin load balancer. A run belongs to the
// replica that holds its RunSSE: RunSSE claims the run's relay key there
// (Hold), and a BidiAppend that reaches a replica not holding the key is
// forwarded through the ports.AppendRelay with the caller's identity and
// the client's headers, and answered once stored. The holder applies a
// forwarded append to its registry exactly as if it had arrived there,
// under the identity it carries; what it can no longer answer (a refused
// append, Cursor's answer for a turn routed upstream) is logged there.
//
// Keys are per caller, so a payload only ever reaches a run of the user
// who sent it: another user's append for the same request id waits in a
// mailbox of its own that no stream of the run's owner claims (and the
// registry's ownership check still stands behind that).
//
// The HTTP/2 Run carries both directions on one stream and needs no relay.
type Replicas struct {
	relay    ports.AppendRelay
	reg      *transport.Registry
	upstream *Upstream
	// linger keeps a key claimed after its last RunSSE was cut before the
	// stream's end, so appends in flight for the run, which goes on, land
	// on it rather than wait in the mailbox for the client's next RunSSE.
	linger  time.Duration
	maxSize int64
	log     *zap.Logger

	ctx  context.Context // applying forwarded appends; cancelled by Close
	stop context.CancelFunc
	wg   sync.WaitGroup

	mu     sync.Mutex
	held   map[string]*hold
	closed bool
}

// hold is one claimed key and the RunSSE streams attached to it here.
type hold struct {
	streams int
	ready   chan struct{} // closed once the claim is made (err says how)
	err     error
	release func()
	timer   *time.Timer
	queue   [][]byte // delivered payloads not yet applied
	working bool     // a worker is applying the queue
}

// NewReplicas relays appends through relay; nil gives a nil *Replicas
// (single process: every append is applied where it arrives). Forwarded
// appends go to reg, or through upstream when their turn is Cursor's.
// maxSize bounds a request body as elsewhere in this package.
func NewReplicas(relay ports.AppendRelay, reg *transport.Registry, upstream *Upstream, maxSize int64, log *zap.Logger) *Replicas {
	if relay == nil {
		return nil
	}
	if maxSize <= 0 {
		maxSize = frame.DefaultMaxSize
	}
	ctx, stop := context.WithCancel(context.Background())
	return &Replicas{
		relay: relay, reg: reg, upstream: upstream, linger: reg.Config().Linger, maxSize: maxSize, log: log,
		ctx: ctx, stop: stop, held: map[string]*hold{},
	}
}

// Hold makes this replica the receiver of the appends of the caller's
// request id (the caller on ctx) until leave is called; several RunSSEs of
// one key share the claim. The last leave releases it at once when its
// stream reached its end (the turn is over and the request id free for a
// later turn, whose RunSSE may reach another replica), or after a short
// linger when the subscriber was cut (cut = true).
func (r *Replicas) Hold(ctx context.Context, requestID string) (leave func(cut bool), err error) {
	key := relayKey(ctx, requestID)
	r.mu.Lock()
	if r.closed {
		r.mu.Unlock()
		return nil, transport.ErrRegistryClosed
	}
	h := r.held[key]
	if h != nil {
		h.streams++
		if h.timer != nil {
			h.timer.Stop()
			h.timer = nil
		}
		r.mu.Unlock()
		<-h.ready
	} else {
		h = &hold{streams: 1, ready: make(chan struct{})}
		r.held[key] = h
		r.mu.Unlock()
		release, err := r.relay.Claim(ctx, key, r.deliverTo(h))
		if err != nil {
			err = connect.NewError(connect.CodeUnavailable, err)
		}
		r.mu.Lock()
		h.release, h.err = release, err
		if err == nil && r.closed {
			release() // Close ran meanwhile and did not see this claim
			h.err = transport.ErrRegistryClosed
		}
		if h.err != nil {
			delete(r.held, key)
		}
		close(h.ready)
		r.mu.Unlock()
	}
	if h.err != nil {
		return nil, h.err
	}
	var once sync.Once
	return func(cut bool) { once.Do(func() { r.leave(key, h, cut) }) }, nil
}

func (r *Replicas) leave(key string, h *hold, cut bool) {
	r.mu.Lock()
	h.streams--
	if h.streams > 0 || r.held[key] != h {
		r.mu.Unlock()
		return
	}
	if !cut {
		delete(r.held, key)
		r.mu.Unlock()
		h.release()
		return
	}
	defer r.mu.Unlock()
	h.timer = time.AfterFunc(r.linger, func() {
		r.mu.Lock()
		if r.held[key] != h || h.streams > 0 {
			r.mu.Unlock()
			return
		}
		delete(r.held, key)
		r.mu.Unlock()
		h.release()
	})
}

// holds reports whether the caller's request id is held here: its appends
// are then applied at once, with their errors answered to the client.
func (r *Replicas) holds(ctx context.Context, requestID string) bool {
	r.mu.Lock()
	defer r.mu.Unlock()
	return r.held[relayKey(ctx, requestID)] != nil
}

// forward stores an agent append for the replica holding its request id.
func (r *Replicas) forward(ctx context.Context, req *connect.Request[aiserverv1.BidiAppendRequest]) error {
	payload, err := encodeForwarded(ctx, req)
	if err != nil {
		return err
	}
	if limit := r.maxSize + relayHeaderRoom; int64(len(payload)) > limit {
		return &frame.TooLargeError{Size: int64(len(payload)), Limit: limit}
	}
	id := req.Msg.GetRequestId().GetRequestId()
	if err := r.relay.Forward(ctx, relayOwner(ctx), relayKey(ctx, id), payload); err != nil {
		code := connect.CodeUnavailable
		if errors.Is(err, ports.ErrRelayFull) {
			code = connect.CodeResourceExhausted
		}
		return connect.NewError(code, fmt.Errorf("relay append for request %s: %w", id, err))
	}
	return nil
}

// deliverTo queues the payloads of h's key for its worker; it runs on the
// relay's goroutine and must not block.
func (r *Replicas) deliverTo(h *hold) func([]byte) {
	return func(payload []byte) {
		r.mu.Lock()
		defer r.mu.Unlock()
		if r.closed {
			return
		}
		h.queue = append(h.queue, payload)
		if !h.working {
			h.working = true
			r.wg.Add(1)
			go r.work(h)
		}
	}
}

// work applies a key's payloads in the order the relay delivers them,
// which is the order the client sent them in when it waited for each
// answer (Cursor sees an upstream turn's appends in that order). An append
// that has to wait for its request id's opening append, which may be
// queued behind it when the client sent both at once, lets the next ones
// go, as concurrent requests would.
func (r *Replicas) work(h *hold) {
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
			if err := r.apply(payload, func() { once.Do(func() { close(waiting) }) }); err != nil {
				r.log.Info("forwarded append refused", zap.Error(err))
			}
		}()
		select {
		case <-done:
		case <-waiting:
		}
	}
}

func (r *Replicas) apply(payload []byte, waiting func()) error {
	ctx, req, err := decodeForwarded(r.ctx, payload)
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

// Close stops taking appends, releases every claim, and waits for the
// appends being applied, which the cancelled context ends promptly.
func (r *Replicas) Close() {
	r.mu.Lock()
	r.closed = true
	held := r.held
	r.held = map[string]*hold{}
	r.mu.Unlock()
	for _, h := range held {
		<-h.ready
		if h.timer != nil {
			h.timer.Stop()
		}
		if h.release != nil {
			h.release()
		}
	}
	r.stop()
	r.wg.Wait()
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
