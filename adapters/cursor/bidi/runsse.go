package bidi

import (
	"bytes"
	"context"
	"errors"
	"net/http"
	"time"

	"connectrpc.com/connect"
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

// takeOverWait bounds how long a stream that took its key from an owner
// that left waits for its turn's opening append: normally it was waiting
// in the mailbox and is applied at once.
const takeOverWait = 3 * time.Second

// emptyTakeOverWait is that wait when the key came from an owner that died
// (or after its stream ended) and nothing was waiting for it: the turn was
// stored (the client resumes it) or ended, and a client that reconnects
// should learn so at once, not after takeOverWait on each reconnect.
const emptyTakeOverWait = 250 * time.Millisecond

// hold makes this replica the owner of the request id, or serves the
// stream from the owner's output (ok false then, the stream done). A
// follower whose owner left before any output reached it takes the key
// itself (took), a couple of times at most; so does a stream whose key
// it took from an owner that died.
func (h *RunSSE) hold(w http.ResponseWriter, rc *http.ResponseController, r *http.Request, requestID string) (leave func(cut bool), wait time.Duration, ok bool) {
	for attempt := 0; ; attempt++ {
		leave, follow, err := h.replicas.Hold(r.Context(), requestID)
		switch {
		case err != nil:
			endWith(w, rc, err)
			return nil, 0, false
		case follow == nil:
			// A stream that followed an owner which let the key go waits
			// the whole takeover wait: the owner may have left before the
			// turn's opening append reached any replica (the client's
			// append still uploading or sent again after a network
			// failure), and ending sooner would send the client to resume
			// a turn that never started. One that took the key from an
			// owner that died waits for the opening append only as long as
			// it may be coming.
			switch took, waiting := h.replicas.tookOver(r.Context(), requestID); {
			case attempt > 0 || (took && waiting):
				return leave, takeOverWait, true
			case took:
				return leave, emptyTakeOverWait, true
			}
			return leave, 0, true
		}
		err = pump(r.Context(), w, rc, follow)
		follow.Close()
		switch {
		case errors.Is(err, errOwnerLeft) && attempt < 2:
			continue
		case errors.Is(err, errOwnerLeft):
			endWith(w, rc, connect.NewError(connect.CodeUnavailable, ErrOwnerGone))
		case err != nil:
			h.log.Debug("RunSSE follower left", zap.String("request_id", requestID), zap.Error(err))
		}
		return nil, 0, false
	}
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
	cut, took := false, false
	subscribing := r.Context()
	if h.replicas != nil && id.GetRequestId() != "" {
		var leave func(bool)
		var ok bool
		var wait time.Duration
		leave, wait, ok = h.hold(w, rc, r, id.GetRequestId())
		if !ok {
			return
		}
		defer func() { leave(cut) }()
		if took = wait > 0; took {
			// The stream took the key from an owner that left before its
			// turn started: the appends waiting for the key open the turn
			// here at once, or it is not coming, and the client resumes.
			var cancel context.CancelFunc
			subscribing, cancel = context.WithTimeout(subscribing, wait)
			defer cancel()
		}
	}
	sub, relay, err := h.reg.Subscribe(subscribing, id.GetRequestId())
	if took && err != nil && r.Context().Err() == nil && (subscribing.Err() != nil || errors.Is(err, transport.ErrRouteTimeout)) {
		// No turn came with the key: the client resumes on a new request
		// id, and what still arrives for this one is late.
		endWith(w, rc, connect.NewError(connect.CodeUnavailable, ErrOwnerGone))
		return
	}
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
