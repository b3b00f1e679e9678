package relstore

import (
	"encoding/json"
	"fmt"
	"time"

	"keygate/domain/callrecord"
	"keygate/domain/llm"
)

// CallRecordColumns is a call_records row (sqlc's CallRecord and
// UpsertCallRecordParams), T the engine's [Stamp].
type CallRecordColumns[T Stamp] struct {
	CallID            string
	RunID             string
	ConversationID    string
	ProviderCallIndex int64
	ProviderKind      string
	RequestUrl        string
	ModelID           string
	ReasoningEffort   string
	ServiceTier       string
	MessageCount      int64
	ToolCount         int64
	ResponseModel     string
	ResponseID        string
	Status            string
	Finish            string
	HttpStatus        int64
	ErrorClass        string
	ErrorMessage      string
	RequestStartedAt  T
	ResponseHeadersAt T
	FirstEventAt      T
	FirstTextAt       T
	FinishedAt        T
	RequestBytes      int64
	ResponseBytes     int64
	EventCount        int64
	HasUsage          bool
	UsageInput        int64
	UsageCacheRead    int64
	UsageCacheWrite   int64
	UsageOutput       int64
	UsageReasoning    int64
	UsageKnown        int64
	Detailed          bool
	UserID            string
	RouteID           string
	RouteTarget       string
	RouteProvider     string
	RouteKey          string
	RouteAttempt      int64
	RouteMoved        string
	Kind              string
	Client            string
}

// CallRecordOf is how rec is stored.
func CallRecordOf[T Stamp](rec callrecord.Record) CallRecordColumns[T] {
	var u UsageColumns
	if rec.Usage != nil {
		u = ColumnsOf(*rec.Usage)
	}
	m, tm := rec.Model, rec.Timing
	return CallRecordColumns[T]{
		CallID: rec.CallID, RunID: rec.RunID, ConversationID: rec.ConversationID,
		ProviderCallIndex: int64(rec.ProviderCallIndex), ProviderKind: string(m.ProviderKind),
		RequestUrl: m.RequestURL, ModelID: m.ModelID, ReasoningEffort: m.ReasoningEffort,
		ServiceTier: m.ServiceTier, MessageCount: int64(m.MessageCount), ToolCount: int64(m.ToolCount),
		ResponseModel: m.ResponseModel, ResponseID: m.ResponseID,
		Status: NameOf(rec.Status), Finish: NameOf(rec.Finish),
		HttpStatus: int64(rec.HTTPStatus), ErrorClass: NameOf(rec.ErrorClass), ErrorMessage: rec.ErrorMessage,
		RequestStartedAt: StampOf[T](tm.RequestStarted), ResponseHeadersAt: StampOf[T](tm.ResponseHeaders),
		FirstEventAt: StampOf[T](tm.FirstEvent), FirstTextAt: StampOf[T](tm.FirstText), FinishedAt: StampOf[T](tm.Finished),
		RequestBytes: rec.RequestBytes, ResponseBytes: rec.ResponseBytes, EventCount: rec.EventCount,
		HasUsage: rec.Usage != nil, UsageInput: u.Input, UsageCacheRead: u.CacheRead,
		UsageCacheWrite: u.CacheWrite, UsageOutput: u.Output, UsageReasoning: u.Reasoning, UsageKnown: u.Known,
		Detailed: rec.Detailed, UserID: rec.UserID, RouteID: rec.Route.ID, RouteTarget: rec.Route.Target,
		RouteProvider: rec.Route.Provider, RouteKey: rec.Route.Key, RouteAttempt: int64(rec.Route.Attempt),
		RouteMoved: rec.Route.Moved, Kind: string(rec.Kind.Effective()), Client: rec.Client,
	}
}

// Record maps the row.
func (r CallRecordColumns[T]) Record() callrecord.Record {
	rec := callrecord.Record{
		CallID: r.CallID, RunID: r.RunID, ConversationID: r.ConversationID,
		ProviderCallIndex: int(r.ProviderCallIndex),
		Model: callrecord.ModelSnapshot{
			ProviderKind: llm.ProviderKind(r.ProviderKind), RequestURL: r.RequestUrl, ModelID: r.ModelID,
			ReasoningEffort: r.ReasoningEffort, ServiceTier: r.ServiceTier,
			MessageCount: int(r.MessageCount), ToolCount: int(r.ToolCount),
			ResponseModel: r.ResponseModel, ResponseID: r.ResponseID,
		},
		Status: ParseCallStatus(r.Status), Finish: ParseFinish(r.Finish),
		HTTPStatus: int(r.HttpStatus), ErrorClass: ParseErrorClass(r.ErrorClass), ErrorMessage: r.ErrorMessage,
		Timing: callrecord.Timing{
			RequestStarted: TimeOf(r.RequestStartedAt), ResponseHeaders: TimeOf(r.ResponseHeadersAt),
			FirstEvent: TimeOf(r.FirstEventAt), FirstText: TimeOf(r.FirstTextAt), Finished: TimeOf(r.FinishedAt),
		},
		RequestBytes: r.RequestBytes, ResponseBytes: r.ResponseBytes, EventCount: r.EventCount,
		Detailed: r.Detailed, UserID: r.UserID,
		Route: callrecord.Route{ID: r.RouteID, Target: r.RouteTarget, Provider: r.RouteProvider, Key: r.RouteKey,
			Attempt: int(r.RouteAttempt), Moved: r.RouteMoved},
		Kind: callrecord.Kind(r.Kind).Effective(), Client: r.Client,
	}
	if r.HasUsage {
		u := UsageColumns{
			Input: r.UsageInput, CacheRead: r.UsageCacheRead, CacheWrite: r.UsageCacheWrite,
			Output: r.UsageOutput, Reasoning: r.UsageReasoning, Known: r.UsageKnown,
		}.Usage()
		rec.Usage = &u
	}
	return rec
}

// CallRequestColumns is a call_requests row (sqlc's CallRequest and
// InsertCallRequestParams); Headers is a JSON array.
type CallRequestColumns struct {
	CallID  string
	Method  string
	Url     string
	Headers string
	Body    []byte
}

// CallRequestOf is how a recorded request is stored.
func CallRequestOf(callID string, req callrecord.Request) (CallRequestColumns, error) {
	headers, err := json.Marshal(req.Headers)
	if err != nil {
		return CallRequestColumns{}, fmt.Errorf("encode recorded headers: %w", err)
	}
	return CallRequestColumns{CallID: callID, Method: req.Method, Url: req.URL, Headers: string(headers), Body: req.Body}, nil
}

// Request maps the row.
func (r CallRequestColumns) Request() (callrecord.Request, error) {
	req := callrecord.Request{Method: r.Method, URL: r.Url, Body: r.Body}
	if err := json.Unmarshal([]byte(r.Headers), &req.Headers); err != nil {
		return callrecord.Request{}, fmt.Errorf("decode recorded headers: %w", err)
	}
	return req, nil
}

// CallChunkColumns is a call_chunks row (sqlc's CallChunk and
// InsertCallChunkParams).
type CallChunkColumns struct {
	CallID   string
	Seq      int64
	OffsetUs int64
	Data     []byte
}

// CallChunkOf is how a chunk of a call is stored.
func CallChunkOf(callID string, c callrecord.Chunk) CallChunkColumns {
	return CallChunkColumns{CallID: callID, Seq: int64(c.Seq), OffsetUs: c.Offset.Microseconds(), Data: c.Data}
}

// Chunk maps the row.
func (r CallChunkColumns) Chunk() callrecord.Chunk {
	return callrecord.Chunk{Seq: int(r.Seq), Offset: time.Duration(r.OffsetUs) * time.Microsecond, Data: r.Data}
}
