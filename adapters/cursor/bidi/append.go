package bidi

import (
	"context"
	"encoding/hex"
	"fmt"
	"net/http"

	"connectrpc.com/connect"
	"go.uber.org/zap"
	"google.golang.org/protobuf/proto"

	"keygate/adapters/cursor/transport"
	agentv1 "keygate/gen/cursor/agent/v1"
	aiserverv1 "keygate/gen/cursor/aiserver/v1"
	"keygate/gen/cursor/aiserver/v1/aiserverv1connect"
)

// ForeignAppends receives BidiAppends that are not agent messages, so that
// they can go upstream: speech-to-text reuses the route; see
// docs/cursor-protocol.md, "Non-agent payloads on BidiAppend".
type ForeignAppends interface {
	// ForeignAppend answers one such append. ctx is the request's context.
	ForeignAppend(ctx context.Context, req *connect.Request[aiserverv1.BidiAppendRequest]) (*connect.Response[aiserverv1.BidiAppendResponse], error)
}

// Appends is the BidiService: it decodes each append and queues it on the
// registry, answering as soon as the message is queued.
type Appends struct {
	reg      *transport.Registry
	foreign  ForeignAppends
	upstream *Upstream
	replicas *Replicas
	log      *zap.Logger
}

var _ aiserverv1connect.BidiServiceHandler = (*Appends)(nil)

// NewAppends returns the BidiService. Foreign payloads go to foreign, or
// else to upstream with the client's headers, or else are refused with
// invalid_argument. upstream receives the appends of
// turns the registry routes to Cursor; nil fails them with unavailable.
// With replicas, an agent append whose request id this replica does not
// hold is forwarded to the replica that does (nil: applied here).
func NewAppends(reg *transport.Registry, foreign ForeignAppends, upstream *Upstream, replicas *Replicas, log *zap.Logger) *Appends {
	return &Appends{reg: reg, foreign: foreign, upstream: upstream, replicas: replicas, log: log}
}

// BidiAppend implements aiserverv1connect.BidiServiceHandler.
func (a *Appends) BidiAppend(ctx context.Context, req *connect.Request[aiserverv1.BidiAppendRequest]) (*connect.Response[aiserverv1.BidiAppendResponse], error) {
	id := req.Msg.GetRequestId().GetRequestId()
	if id == "" {
		return nil, connectError(transport.ErrEmptyRequestID)
	}
	msg, raw, ok := DecodeAppendData(req.Msg.GetData())
	if !ok || len(req.Msg.GetDataBinary()) > 0 {
		return a.foreignAppend(ctx, id, req)
	}
	parent, err := parentFrom(req.Header())
	if err != nil {
		return nil, connectError(err)
	}
	opens := req.Msg.GetAppendSeqno() == 0 && msg.GetRunRequest() != nil
	if a.replicas != nil && !a.replicas.holds(ctx, id) {
		// Refused here what the holder would refuse at once, since the
		// client can no longer hear its answer.
		if opens && !transport.SelectsModel(msg.GetRunRequest()) {
			return nil, connectError(transport.ErrNoModel)
		}
		if err := a.replicas.forward(ctx, req, opens); err != nil {
			return nil, connectError(err)
		}
		return connect.NewResponse(&aiserverv1.BidiAppendResponse{}), nil
	}
	if a.replicas != nil {
		if opens {
			a.replicas.opened(ctx, id)
		}
		a.replicas.keep(ctx, req, opens)
	}
	resp, err := appendAgent(ctx, a.reg, a.upstream, req, transport.Append{RequestID: id, Seqno: req.Msg.GetAppendSeqno(), Message: msg, Raw: raw, Parent: parent})
	if a.replicas != nil && refused(err) {
		// This replica drains and starts no turn: it lets the request id
		// go, and the append waits for the replica the client's next
		// RunSSE reaches, as if it had arrived there.
		a.replicas.handOff(ctx, id)
		if err := a.replicas.forward(ctx, req, opens); err != nil {
			return nil, connectError(err)
		}
		return connect.NewResponse(&aiserverv1.BidiAppendResponse{}), nil
	}
	if err != nil {
		return nil, connectError(err)
	}
	return resp, nil
}

// appendAgent queues a, the decoded req, on reg, or sends req to Cursor
// through upstream when the registry routes its turn there.
func appendAgent(ctx context.Context, reg *transport.Registry, upstream *Upstream, req *connect.Request[aiserverv1.BidiAppendRequest],
	a transport.Append) (*connect.Response[aiserverv1.BidiAppendResponse], error) {
	route, err := reg.Append(ctx, a)
	if err != nil {
		return nil, err
	}
	if route == transport.Upstream {
		if a.Seqno == 0 && a.Message.GetRunRequest() != nil {
			defer reg.OpeningForwarded(ctx, a.RequestID)
		}
		return upstream.Append(ctx, req)
	}
	return connect.NewResponse(&aiserverv1.BidiAppendResponse{}), nil
}

func (a *Appends) foreignAppend(ctx context.Context, id string, req *connect.Request[aiserverv1.BidiAppendRequest]) (*connect.Response[aiserverv1.BidiAppendResponse], error) {
	if a.reg.Owns(ctx, id) {
		a.log.Debug("foreign payload on a local run ignored", zap.String("request_id", id))
		return connect.NewResponse(&aiserverv1.BidiAppendResponse{}), nil
	}
	switch {
	case a.foreign != nil:
		return a.foreign.ForeignAppend(ctx, req)
	case a.upstream != nil:
		return a.upstream.Append(ctx, req)
	}
	return nil, connectError(ErrNotAgentMessage)
}

// DecodeAppendData decodes BidiAppendRequest.data: hex of an
// AgentClientMessage. ok is false for anything else (not hex, not the
// message, or no oneof set). Unknown fields are kept in msg; raw is the
// decoded bytes.
func DecodeAppendData(data string) (msg *agentv1.AgentClientMessage, raw []byte, ok bool) {
	raw, err := hex.DecodeString(data)
	if err != nil {
		return nil, nil, false
	}
	msg = &agentv1.AgentClientMessage{}
	if err := proto.Unmarshal(raw, msg); err != nil || msg.GetMessage() == nil {
		return nil, nil, false
	}
	return msg, raw, true
}

// EncodeAppendData is the inverse of DecodeAppendData (lowercase hex).
func EncodeAppendData(msg *agentv1.AgentClientMessage) (string, error) {
	b, err := proto.Marshal(msg)
	if err != nil {
		return "", fmt.Errorf("marshal client message: %w", err)
	}
	return hex.EncodeToString(b), nil
}

// parentFrom reads the subagent parent headers: both or neither.
func parentFrom(h http.Header) (transport.Parent, error) {
	p := transport.Parent{RequestID: h.Get("X-Parent-Request-Id"), ToolCallID: h.Get("X-Parent-Agent-Tool-Call-Id")}
	if (p.RequestID == "") != (p.ToolCallID == "") {
		return transport.Parent{}, ErrParentHeaders
	}
	return p, nil
}
