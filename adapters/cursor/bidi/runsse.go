package bidi

import (
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
	reg     *transport.Registry
	maxSize int64
	log     *zap.Logger
}

var _ http.Handler = (*RunSSE)(nil)

// NewRunSSE returns the RunSSE handler; maxSize bounds the request body
// (<= 0: frame.DefaultMaxSize).
func NewRunSSE(reg *transport.Registry, maxSize int64, log *zap.Logger) *RunSSE {
	return &RunSSE{reg: reg, maxSize: maxSize, log: log}
}

// ServeHTTP implements http.Handler. The request body is a BidiRequestId,
// enveloped (application/connect+proto) or bare.
func (h *RunSSE) ServeHTTP(w http.ResponseWriter, r *http.Request) {
	if !onlyPost(w, r) {
		return
	}
	body, bodyErr := frame.UnaryBody(r.Body, r.Header.Get("Content-Encoding"), h.maxSize)
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
	sub, err := h.reg.Subscribe(r.Context(), id.GetRequestId())
	if err != nil {
		endWith(w, rc, err)
		return
	}
	defer sub.Close()
	if err := pump(r.Context(), w, rc, sub); err != nil {
		h.log.Debug("RunSSE subscriber left", zap.String("request_id", id.GetRequestId()), zap.Error(err))
	}
}
