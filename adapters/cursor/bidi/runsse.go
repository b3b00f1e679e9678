package bidi

import (
	"bytes"
	"errors"
	"net/http"
	"time"

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
	limits   frame.Limits
	log      *zap.Logger
}

// MaxRunSSEBody bounds a RunSSE request body, raw and inflated: it is one
// BidiRequestId (a request id of a few dozen bytes), so 64 KiB leaves room
// for any field a later client adds while a gzip bomb inflates next to
// nothing before it is refused.
const MaxRunSSEBody = 64 << 10

// RunSSEReadTimeout bounds reading a RunSSE request body: the body is tiny,
// and the stream that follows it is not bounded by this.
const RunSSEReadTimeout = 10 * time.Second

var _ http.Handler = (*RunSSE)(nil)

// NewRunSSE returns the RunSSE handler; limits bound reading the request
// body (zero MaxSize: MaxRunSSEBody; zero ReadTimeout: RunSSEReadTimeout),
// never the response stream. The RunSSE of a turn routed to Cursor is
// relayed through upstream with its original body. With replicas, the
// RunSSE holds its request id on this replica while it lasts, so that the
// appends other replicas receive are applied here.
func NewRunSSE(reg *transport.Registry, upstream *Upstream, replicas *Replicas, limits frame.Limits, log *zap.Logger) *RunSSE {
	if limits.MaxSize <= 0 {
		limits.MaxSize = MaxRunSSEBody
	}
	if limits.ReadTimeout <= 0 {
		limits.ReadTimeout = RunSSEReadTimeout
	}
	return &RunSSE{reg: reg, upstream: upstream, replicas: replicas, limits: limits, log: log}
}

// ServeHTTP implements http.Handler. The request body is a BidiRequestId,
// enveloped (application/connect+proto) or bare.
func (h *RunSSE) ServeHTTP(w http.ResponseWriter, r *http.Request) {
	if !onlyPost(w, r) {
		return
	}
	raw, body, bodyErr := frame.DecodeBody(w, r, h.limits)
	rc := startStream(w, ContentTypeSSE)
	if bodyErr != nil {
		endWith(w, rc, frame.BodyError(bodyErr))
		return
	}
	var id agentv1.BidiRequestId
	if err := proto.Unmarshal(body, &id); err != nil {
		endWith(w, rc, BadRequestBodyError{Err: err})
		return
	}
	cut := false
	if h.replicas != nil && id.GetRequestId() != "" {
		leave, follow, err := h.replicas.Hold(r.Context(), id.GetRequestId())
		if err != nil {
			endWith(w, rc, err)
			return
		}
		if follow != nil {
			if err := pump(r.Context(), w, rc, follow); err != nil {
				h.log.Debug("RunSSE follower left", zap.String("request_id", id.GetRequestId()), zap.Error(err))
			}
			return
		}
		defer func() { leave(cut) }()
	}
	sub, relay, err := h.reg.Subscribe(r.Context(), id.GetRequestId())
	if err != nil {
		// Refused by a draining replica, the stream did not reach an end
		// of its own: the key is handed over, not ended.
		cut = errors.Is(err, transport.ErrDraining)
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
