package bidi

import (
	"bytes"
	"fmt"
	"io"
	"net/http"

	"go.uber.org/zap"
	"google.golang.org/protobuf/proto"

	"keygate/adapters/cursor/frame"
	"keygate/adapters/cursor/transport"
	agentv1 "keygate/gen/cursor/agent/v1"
)

// RunSSE serves /agent.v1.AgentService/RunSSE: the downlink of a run over
// HTTP/1.1. Each (re)subscriber gets every frame from the start, then live
// frames, heartbeats while idle, and the end-of-stream frame.
type RunSSE struct {
	reg      *transport.Registry
	upstream *Upstream
	replicas *Replicas
	maxSize  int64
	log      *zap.Logger
}

var _ http.Handler = (*RunSSE)(nil)

// NewRunSSE returns the RunSSE handler; maxSize bounds the request body
// (<= 0: frame.DefaultMaxSize). The RunSSE of a turn routed to Cursor is
// relayed through upstream with its original body. With replicas, the
// RunSSE holds its request id on this replica while it lasts, so that the
// appends other replicas receive are applied here.
func NewRunSSE(reg *transport.Registry, upstream *Upstream, replicas *Replicas, maxSize int64, log *zap.Logger) *RunSSE {
	return &RunSSE{reg: reg, upstream: upstream, replicas: replicas, maxSize: maxSize, log: log}
}

// ServeHTTP implements http.Handler. The request body is a BidiRequestId,
// enveloped (application/connect+proto) or bare.
func (h *RunSSE) ServeHTTP(w http.ResponseWriter, r *http.Request) {
	if !onlyPost(w, r) {
		return
	}
	raw, bodyErr := readRaw(r.Body, h.maxSize)
	var body []byte
	if bodyErr == nil {
		body, bodyErr = frame.UnaryBody(bytes.NewReader(raw), r.Header.Get("Content-Encoding"), h.maxSize)
	}
	rc := startStream(w, ContentTypeSSE)
	if bodyErr != nil {
		endWith(w, rc, BadRequestBodyError{Err: bodyErr})
		return
	}
	var id agentv1.BidiRequestId
	if err := proto.Unmarshal(body, &id); err != nil {
		endWith(w, rc, BadRequestBodyError{Err: err})
		return
	}
	cut := false
	if h.replicas != nil && id.GetRequestId() != "" {
		leave, err := h.replicas.Hold(r.Context(), id.GetRequestId())
		if err != nil {
			endWith(w, rc, err)
			return
		}
		defer func() { leave(cut) }()
	}
	sub, relay, err := h.reg.Subscribe(r.Context(), id.GetRequestId())
	if err != nil {
		endWith(w, rc, err)
		return
	}
	if relay != nil {
		defer relay.Close()
		h.upstream.relay(w, rc, r, bytes.NewReader(raw), int64(len(raw)), APIURL, relay.Ended)
		return
	}
	defer sub.Close()
	if err := pump(r.Context(), w, rc, sub); err != nil {
		cut = true
		h.log.Debug("RunSSE subscriber left", zap.String("request_id", id.GetRequestId()), zap.Error(err))
	}
}

// readRaw reads a request body as it came, up to limit bytes (<= 0:
// frame.DefaultMaxSize); a relay to Cursor re-sends exactly these bytes.
func readRaw(body io.Reader, limit int64) ([]byte, error) {
	if limit <= 0 {
		limit = frame.DefaultMaxSize
	}
	limit += frame.HeaderSize
	raw, err := io.ReadAll(io.LimitReader(body, limit+1))
	if err != nil {
		return nil, fmt.Errorf("read request body: %w", err)
	}
	if int64(len(raw)) > limit {
		return nil, &frame.TooLargeError{Size: int64(len(raw)), Limit: limit}
	}
	return raw, nil
}
