package bidi

import (
	"bytes"
	"context"
	"errors"
	"io"
	"net/http"
	"sync/atomic"

	"github.com/google/uuid"
	"go.uber.org/zap"
	"google.golang.org/protobuf/proto"

	"keygate/adapters/cursor/frame"
	"keygate/adapters/cursor/transport"
	agentv1 "keygate/gen/cursor/agent/v1"
)

// Run serves /agent.v1.AgentService/Run: the whole run on one HTTP/2
// stream. The request body is a stream of enveloped AgentClientMessages with
// implicit seqnos 0, 1, 2, ...; the request id is the x-request-id header.
// The response carries the same frames as RunSSE.
type Run struct {
	reg      *transport.Registry
	upstream *Upstream
	limits   frame.Limits
	log      *zap.Logger
}

var _ http.Handler = (*Run)(nil)

// NewRun returns the Run handler; limits.MaxSize bounds each frame (<= 0:
// frame.DefaultMaxSize), inflated through limits.Inflater. The stream's
// uplink stays open for the whole run, so no read timeout applies. A run whose first run_request is routed to Cursor
// is relayed whole through upstream.
func NewRun(reg *transport.Registry, upstream *Upstream, limits frame.Limits, log *zap.Logger) *Run {
	return &Run{reg: reg, upstream: upstream, limits: limits, log: log}
}

// ServeHTTP implements http.Handler.
func (h *Run) ServeHTTP(w http.ResponseWriter, r *http.Request) {
	if !onlyPost(w, r) {
		return
	}
	if r.ProtoMajor < 2 {
		// HTTP/1's server reads the whole request body before it writes a
		// response, and a Run body does not end: answer without waiting for
		// it, and close the connection rather than drain it afterwards.
		_ = http.NewResponseController(w).EnableFullDuplex()
		w.Header().Set("Connection", "close")
		endWith(w, startStream(w, ContentTypeConnect), ErrNeedsHTTP2)
		return
	}
	rc := startStream(w, ContentTypeConnect)
	id := r.Header.Get("X-Request-Id")
	if id == "" {
		id = uuid.NewString()
		h.log.Warn("AgentService/Run without x-request-id; using a random one", zap.String("request_id", id))
	}
	parent, err := parentFrom(r.Header)
	if err != nil {
		endWith(w, rc, err)
		return
	}
	read := &recorder{r: r.Body}
	frames := frame.NewReader(read, h.limits.MaxSize).Inflating(h.limits.Inflater)
	first, raw, err := readMessage(r.Context(), frames)
	if err == nil && first.GetRunRequest() != nil && h.reg.RouteOf(r.Context(), first.GetRunRequest()) == transport.Upstream {
		// Cursor's run: replay what was read, then the rest of the body.
		h.upstream.relay(w, rc, r, io.MultiReader(bytes.NewReader(read.seen), r.Body), -1, AgentURL, nil)
		return
	}
	read.off = true
	if err == nil {
		_, err = h.reg.Append(r.Context(), transport.Append{RequestID: id, Seqno: 0, Message: first, Raw: raw, Parent: parent})
	}
	if err != nil {
		endWith(w, rc, err)
		return
	}
	sub, relay, err := h.reg.Subscribe(r.Context(), id)
	if relay != nil {
		relay.Close() // a RunSSE of the same request id took the turn to Cursor meanwhile
		err = transport.ErrSuperseded
	}
	if err != nil {
		endWith(w, rc, err)
		return
	}
	defer sub.Close()
	var over atomic.Bool
	defer over.Store(true)
	go h.uplink(r, id, parent, frames, sub, &over)
	if err := pump(r.Context(), w, rc, sub); err != nil {
		h.log.Debug("Run downlink closed", zap.String("request_id", id), zap.Error(err))
	}
}

// uplink feeds the rest of the request body into the registry until the
// client's end-of-stream frame, EOF or a bad frame.
func (h *Run) uplink(r *http.Request, id string, parent transport.Parent, frames *frame.Reader, sub *transport.Subscription, over *atomic.Bool) {
	for seq := int64(1); ; seq++ {
		msg, raw, err := readMessage(r.Context(), frames)
		if over.Load() {
			return
		}
		if errors.Is(err, io.EOF) {
			sub.CloseUplink(nil)
			return
		}
		if err == nil {
			_, err = h.reg.Append(r.Context(), transport.Append{RequestID: id, Seqno: seq, Message: msg, Raw: raw, Parent: parent})
		}
		if err != nil {
			if !over.Load() {
				sub.CloseUplink(connectError(err))
			}
			return
		}
	}
}

// readMessage reads one AgentClientMessage frame. The client's end-of-stream
// frame reads as io.EOF.
func readMessage(ctx context.Context, frames *frame.Reader) (*agentv1.AgentClientMessage, []byte, error) {
	f, err := frames.Next(ctx)
	if err != nil {
		return nil, nil, err
	}
	if f.EndStream() {
		return nil, nil, io.EOF
	}
	msg := &agentv1.AgentClientMessage{}
	if err := proto.Unmarshal(f.Payload, msg); err != nil {
		return nil, nil, BadRequestBodyError{Err: err}
	}
	if msg.GetMessage() == nil {
		return nil, nil, ErrNotAgentMessage
	}
	return msg, f.Payload, nil
}

// recorder keeps the bytes read from a Run body until the route is known,
// so that a run for Cursor can be replayed from its first byte (whatever
// the frame reader buffered included). Once off it is a plain pass-through.
type recorder struct {
	r    io.Reader
	seen []byte
	off  bool
}

func (c *recorder) Read(p []byte) (int, error) {
	n, err := c.r.Read(p)
	if !c.off {
		c.seen = append(c.seen, p[:n]...)
	}
	return n, err
}
