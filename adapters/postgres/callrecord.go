package postgres

import (
	"context"
	"encoding/json"
	"time"

	"keygate/adapters/relstore"
	"keygate/domain/callrecord"
	"keygate/domain/llm"
	"keygate/gen/sqlc/pgdb"
)

func (t tx) UpsertCallRecord(ctx context.Context, rec callrecord.Record) error {
	var u relstore.UsageColumns
	if rec.Usage != nil {
		u = relstore.ColumnsOf(*rec.Usage)
	}
	m, tm := rec.Model, rec.Timing
	err := t.q.UpsertCallRecord(ctx, pgdb.UpsertCallRecordParams{
		CallID: rec.CallID, RunID: rec.RunID, ConversationID: rec.ConversationID,
		ProviderCallIndex: int64(rec.ProviderCallIndex), ProviderKind: string(m.ProviderKind),
		RequestUrl: m.RequestURL, ModelID: m.ModelID, ReasoningEffort: m.ReasoningEffort,
		ServiceTier: m.ServiceTier, MessageCount: int64(m.MessageCount), ToolCount: int64(m.ToolCount),
		ResponseModel: m.ResponseModel, ResponseID: m.ResponseID,
		Status: relstore.NameOf(rec.Status), Finish: relstore.NameOf(rec.Finish),
		HttpStatus: int64(rec.HTTPStatus), ErrorClass: relstore.NameOf(rec.ErrorClass), ErrorMessage: rec.ErrorMessage,
		RequestStartedAt: tm.RequestStarted, ResponseHeadersAt: tm.ResponseHeaders,
		FirstEventAt: tm.FirstEvent, FirstTextAt: tm.FirstText, FinishedAt: tm.Finished,
		RequestBytes: rec.RequestBytes, ResponseBytes: rec.ResponseBytes, EventCount: rec.EventCount,
		HasUsage: rec.Usage != nil, UsageInput: u.Input, UsageCacheRead: u.CacheRead,
		UsageCacheWrite: u.CacheWrite, UsageOutput: u.Output, UsageReasoning: u.Reasoning, UsageKnown: u.Known,
		Detailed: rec.Detailed, UserID: rec.UserID, RouteID: rec.Route.ID, RouteTarget: rec.Route.Target,
		RouteProvider: rec.Route.Provider, RouteKey: rec.Route.Key, RouteAttempt: int64(rec.Route.Attempt),
		RouteMoved: rec.Route.Moved,
	})
	return interpretError(ctx, err)
}

func (t tx) GetCallRecord(ctx context.Context, callID string) (callrecord.Record, error) {
	row, err := t.q.GetCallRecord(ctx, callID)
	return callRecordFromRow(row), interpretError(ctx, err)
}

func (t tx) InsertCallRequest(ctx context.Context, callID string, req callrecord.Request) error {
	headers, err := json.Marshal(req.Headers)
	if err != nil {
		return err
	}
	err = t.q.InsertCallRequest(ctx, pgdb.InsertCallRequestParams{
		CallID: callID, Method: req.Method, Url: req.URL, Headers: string(headers), Body: req.Body,
	})
	return interpretError(ctx, err)
}

func (t tx) GetCallRequest(ctx context.Context, callID string) (callrecord.Request, error) {
	row, err := t.q.GetCallRequest(ctx, callID)
	if err != nil {
		return callrecord.Request{}, interpretError(ctx, err)
	}
	return relstore.RequestFromColumns(row.Method, row.Url, []byte(row.Headers), row.Body)
}

func (t tx) InsertCallChunk(ctx context.Context, callID string, c callrecord.Chunk) error {
	err := t.q.InsertCallChunk(ctx, pgdb.InsertCallChunkParams{
		CallID: callID, Seq: int64(c.Seq), OffsetUs: c.Offset.Microseconds(), Data: c.Data,
	})
	return interpretError(ctx, err)
}

func (t tx) CallChunks(ctx context.Context, callID string) ([]callrecord.Chunk, error) {
	rows, err := t.q.CallChunks(ctx, callID)
	out := make([]callrecord.Chunk, len(rows))
	for i, r := range rows {
		out[i] = callrecord.Chunk{Seq: int(r.Seq), Offset: time.Duration(r.OffsetUs) * time.Microsecond, Data: r.Data}
	}
	return out, interpretError(ctx, err)
}

func callRecordFromRow(r pgdb.CallRecord) callrecord.Record {
	rec := callrecord.Record{
		CallID: r.CallID, RunID: r.RunID, ConversationID: r.ConversationID,
		ProviderCallIndex: int(r.ProviderCallIndex),
		Model: callrecord.ModelSnapshot{
			ProviderKind: llm.ProviderKind(r.ProviderKind), RequestURL: r.RequestUrl, ModelID: r.ModelID,
			ReasoningEffort: r.ReasoningEffort, ServiceTier: r.ServiceTier,
			MessageCount: int(r.MessageCount), ToolCount: int(r.ToolCount),
			ResponseModel: r.ResponseModel, ResponseID: r.ResponseID,
		},
		Status: relstore.ParseCallStatus(r.Status), Finish: relstore.ParseFinish(r.Finish),
		HTTPStatus: int(r.HttpStatus), ErrorClass: relstore.ParseErrorClass(r.ErrorClass), ErrorMessage: r.ErrorMessage,
		Timing: callrecord.Timing{
			RequestStarted: utc(r.RequestStartedAt), ResponseHeaders: utc(r.ResponseHeadersAt),
			FirstEvent: utc(r.FirstEventAt), FirstText: utc(r.FirstTextAt), Finished: utc(r.FinishedAt),
		},
		RequestBytes: r.RequestBytes, ResponseBytes: r.ResponseBytes, EventCount: r.EventCount,
		Detailed: r.Detailed, UserID: r.UserID,
		Route: callrecord.Route{ID: r.RouteID, Target: r.RouteTarget, Provider: r.RouteProvider, Key: r.RouteKey,
			Attempt: int(r.RouteAttempt), Moved: r.RouteMoved},
	}
	if r.HasUsage {
		u := relstore.UsageColumns{
			Input: r.UsageInput, CacheRead: r.UsageCacheRead, CacheWrite: r.UsageCacheWrite,
			Output: r.UsageOutput, Reasoning: r.UsageReasoning, Known: r.UsageKnown,
		}.Usage()
		rec.Usage = &u
	}
	return rec
}
