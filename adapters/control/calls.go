package control

import (
	"context"
	"encoding/base64"
	"errors"
	"strings"
	"time"

	"connectrpc.com/connect"
	"go.uber.org/zap"
	"google.golang.org/protobuf/types/known/timestamppb"

	appcontrol "keygate/app/control"
	"keygate/domain/access"
	"keygate/domain/callrecord"
	controlv1 "keygate/gen/keygate/control/v1"
	"keygate/gen/keygate/control/v1/controlv1connect"
	"keygate/ports"
)

// callService implements controlv1connect.CallServiceHandler.
type callService struct {
	calls *appcontrol.Calls
	log   *zap.Logger
}

var _ controlv1connect.CallServiceHandler = (*callService)(nil)

func (h *callService) ListCalls(ctx context.Context, req *connect.Request[controlv1.ListCallsRequest]) (*connect.Response[controlv1.ListCallsResponse], error) {
	f := req.Msg.GetFilter()
	q := ports.CallQuery{ModelID: f.GetModelId(), Status: callrecord.Status(f.GetStatus()),
		ConversationID: f.GetConversationId(), UserID: f.GetUserId(), Limit: int(req.Msg.GetPageSize())}
	if k := f.GetKind(); k != controlv1.CallKind_CALL_KIND_UNSPECIFIED {
		var ok bool
		if q.Kind, ok = callKinds[k]; !ok {
			return nil, connect.NewError(connect.CodeInvalidArgument, errBadKind)
		}
	}
	if f.GetStartTime() != nil {
		q.Since = f.GetStartTime().AsTime()
	}
	if f.GetEndTime() != nil {
		q.Until = f.GetEndTime().AsTime()
	}
	if tok := req.Msg.GetPageToken(); tok != "" {
		t, id, err := decodeToken(tok)
		if err != nil {
			return nil, connect.NewError(connect.CodeInvalidArgument, err)
		}
		q.After = &ports.CallCursor{Started: t, CallID: id}
	}
	page, err := h.calls.List(ctx, q)
	if err != nil {
		return nil, toConnect(h.log, "ListCalls", err)
	}
	resp := &controlv1.ListCallsResponse{Calls: make([]*controlv1.Call, len(page.Calls))}
	member := isMember(ctx)
	for i, r := range page.Calls {
		resp.Calls[i] = callToProto(r)
		if member {
			resp.Calls[i].GetModel().RequestUrl = ""
		}
	}
	if page.Next != nil {
		resp.NextPageToken = encodeToken(page.Next.Started, page.Next.CallID)
	}
	return connect.NewResponse(resp), nil
}

func (h *callService) GetCall(ctx context.Context, req *connect.Request[controlv1.GetCallRequest]) (*connect.Response[controlv1.GetCallResponse], error) {
	d, err := h.calls.Get(ctx, req.Msg.GetCallId())
	if err != nil {
		return nil, toConnect(h.log, "GetCall", err)
	}
	resp := &controlv1.GetCallResponse{Call: callToProto(d.Record), CacheInsight: insightToProto(d.Insight)}
	if r := d.Request; r != nil {
		resp.Request = &controlv1.RecordedRequest{Method: r.Method, Url: r.URL, Body: string(r.Body)}
		for _, hd := range r.Headers {
			resp.Request.Headers = append(resp.Request.Headers, &controlv1.Header{Name: hd.Name, Value: hd.Value})
		}
	}
	for _, c := range d.Chunks {
		resp.Chunks = append(resp.Chunks, &controlv1.ResponseChunk{Seq: int32(c.Seq), OffsetMs: c.Offset.Milliseconds(), Data: string(c.Data)})
	}
	if isMember(ctx) {
		resp.Call.GetModel().RequestUrl = ""
		if resp.Request != nil {
			resp.Request.Url = ""
		}
	}
	return connect.NewResponse(resp), nil
}

// isMember reports a signed-in member: they see their own calls, but not
// where the provider is (a request URL may carry credentials in its query
// or name an internal gateway), as they do not see the models' base URLs.
func isMember(ctx context.Context) bool {
	p, ok := access.FromContext(ctx)
	return ok && !p.IsAdmin()
}

// Status values are the same numbers in the domain and in the API.
func callToProto(r callrecord.Record) *controlv1.Call {
	c := &controlv1.Call{CallId: r.CallID, RunId: r.RunID, ConversationId: r.ConversationID, UserId: r.UserID,
		Kind:              callKindToProto(r.Kind),
		Client:            r.Client,
		ProviderCallIndex: int32(r.ProviderCallIndex), Status: controlv1.CallStatus(r.Status),
		HttpStatus: int32(r.HTTPStatus), ErrorMessage: r.ErrorMessage, RequestBytes: r.RequestBytes,
		ResponseBytes: r.ResponseBytes, EventCount: r.EventCount, Detailed: r.Detailed,
		Model: &controlv1.ModelSnapshot{ProviderKind: kindToProto(r.Model.ProviderKind), RequestUrl: r.Model.RequestURL,
			ModelId: r.Model.ModelID, ReasoningEffort: r.Model.ReasoningEffort, ServiceTier: r.Model.ServiceTier,
			MessageCount: int32(r.Model.MessageCount), ToolCount: int32(r.Model.ToolCount),
			ResponseModel: r.Model.ResponseModel, ResponseId: r.Model.ResponseID},
		Timing: &controlv1.CallTiming{RequestStartTime: ts(r.Timing.RequestStarted), ResponseHeadersTime: ts(r.Timing.ResponseHeaders),
			FirstEventTime: ts(r.Timing.FirstEvent), FirstTextTime: ts(r.Timing.FirstText), FinishTime: ts(r.Timing.Finished),
			TtfbMs: r.Timing.TTFB().Milliseconds(), TtftMs: r.Timing.TTFT().Milliseconds(), DurationMs: r.Timing.Duration().Milliseconds()}}
	if r.Finish != 0 {
		c.FinishReason = r.Finish.String()
	}
	if r.ErrorClass != 0 {
		c.ErrorClass = r.ErrorClass.String()
	}
	if u := r.Usage; u != nil {
		c.Usage = &controlv1.Usage{InputTokens: u.Input, CacheReadTokens: u.CacheRead, CacheWriteTokens: u.CacheWrite,
			OutputTokens: u.Output, ReasoningTokens: u.Reasoning}
	}
	if rt := r.Route; rt != (callrecord.Route{}) {
		c.Route = &controlv1.CallRoute{RouteId: rt.ID, TargetModelId: rt.Target, ProviderId: rt.Provider, KeyId: rt.Key,
			Attempt: int32(rt.Attempt), Moved: rt.Moved}
	}
	return c
}

func insightToProto(in appcontrol.Insight) *controlv1.CacheInsight {
	out := &controlv1.CacheInsight{State: controlv1.CacheInsightState(in.State), PreviousCallId: in.PreviousCallID,
		CommonMessages: int32(in.Common), PreviousMessages: int32(in.PreviousMessages), Messages: int32(in.Messages),
		Explanation: in.Explanation, PromptTokensEstimate: in.PromptTokens, PrefixTokensEstimate: in.PrefixTokens}
	if d := in.Divergence; d != nil {
		out.BreakField, out.BreakCause, out.BreakMessageId = d.Field, d.Cause.String(), d.MessageID
	}
	for _, c := range in.Causes {
		out.Causes = append(out.Causes, causeToProto[c])
	}
	return out
}

// causeToProto maps each cache insight cause to the control API's; a
// cause without an entry goes out unspecified, which the console shows as
// unknown.
var causeToProto = map[appcontrol.InsightCause]controlv1.CacheCause{
	appcontrol.CauseModeSwitch:    controlv1.CacheCause_CACHE_CAUSE_MODE_SWITCH,
	appcontrol.CauseModelSwitch:   controlv1.CacheCause_CACHE_CAUSE_MODEL_SWITCH,
	appcontrol.CauseMCPChange:     controlv1.CacheCause_CACHE_CAUSE_MCP_CHANGE,
	appcontrol.CauseContextChange: controlv1.CacheCause_CACHE_CAUSE_CONTEXT_CHANGE,
}

func ts(t time.Time) *timestamppb.Timestamp {
	if t.IsZero() {
		return nil
	}
	return timestamppb.New(t)
}

// A page token is a time (RFC 3339) and an id: the sort position of the
// last item of a page.
func encodeToken(t time.Time, id string) string {
	return base64.RawURLEncoding.EncodeToString([]byte(t.UTC().Format(time.RFC3339Nano) + "|" + id))
}

// callKinds maps the API's call kinds to the records'.
var callKinds = map[controlv1.CallKind]callrecord.Kind{
	controlv1.CallKind_CALL_KIND_AGENT:  callrecord.KindAgent,
	controlv1.CallKind_CALL_KIND_TAB:    callrecord.KindTab,
	controlv1.CallKind_CALL_KIND_TEST:   callrecord.KindTest,
	controlv1.CallKind_CALL_KIND_CMDK:   callrecord.KindCmdK,
	controlv1.CallKind_CALL_KIND_COMMIT: callrecord.KindCommit,
	controlv1.CallKind_CALL_KIND_API:    callrecord.KindAPI,
}

var errBadKind = errors.New("unknown kind: use agent, tab, cmdk, commit, api or test, or leave it unset")

// callKindToProto is the API's name of k; a kind the API does not know
// yet is unspecified.
func callKindToProto(k callrecord.Kind) controlv1.CallKind {
	k = k.Effective()
	for p, rk := range callKinds {
		if rk == k {
			return p
		}
	}
	return controlv1.CallKind_CALL_KIND_UNSPECIFIED
}

var errBadToken = errors.New("invalid page_token: start the list again from the first page")

// maxPageToken bounds a page token: a time and an id, base64.
const maxPageToken = 512

func decodeToken(tok string) (time.Time, string, error) {
	if len(tok) > maxPageToken {
		return time.Time{}, "", errBadToken
	}
	raw, err := base64.RawURLEncoding.DecodeString(tok)
	if err != nil {
		return time.Time{}, "", errBadToken
	}
	at, id, ok := strings.Cut(string(raw), "|")
	t, err := time.Parse(time.RFC3339Nano, at)
	if !ok || err != nil {
		return time.Time{}, "", errBadToken
	}
	return t, id, nil
}
