package postgres

import (
	"context"
	"time"

	"keygate/adapters/relstore"
	"keygate/domain/callrecord"
	"keygate/domain/compaction"
	"keygate/gen/sqlc/pgdb"
	"keygate/ports"
)

func (t tx) ListCallRecords(ctx context.Context, q relstore.CallListQuery) ([]callrecord.Record, error) {
	rows, err := t.q.ListCallRecords(ctx, pgdb.ListCallRecordsParams{
		ModelID: q.ModelID, Status: q.Status, ConversationID: q.ConversationID, UserID: q.UserID,
		Since: q.Since, Until: q.Until, AfterStarted: q.AfterStarted, AfterCallID: q.AfterCallID,
		MaxRows: q.Limit,
	})
	out := make([]callrecord.Record, len(rows))
	for i, r := range rows {
		out[i] = relstore.CallRecordColumns[time.Time](r).Record()
	}
	return out, interpretError(ctx, err)
}

func (t tx) CountDetailedBefore(ctx context.Context, cutoff time.Time) (int, error) {
	n, err := t.q.CountDetailedBefore(ctx, cutoff)
	return int(n), interpretError(ctx, err)
}

func (t tx) DeleteDetailsBefore(ctx context.Context, cutoff time.Time) error {
	if err := t.q.DeleteChunksBefore(ctx, cutoff); err != nil {
		return interpretError(ctx, err)
	}
	return interpretError(ctx, t.q.DeleteRequestsBefore(ctx, cutoff))
}

func (t tx) ListConversations(ctx context.Context, q relstore.PageQuery) ([]ports.ConversationSummary, error) {
	rows, err := t.q.ListConversations(ctx, pgdb.ListConversationsParams{
		AfterUpdated: q.AfterUpdated, AfterID: q.AfterID, MaxRows: q.Limit,
	})
	out := make([]ports.ConversationSummary, len(rows))
	for i, r := range rows {
		out[i] = ports.ConversationSummary{
			ID: r.ID, HeadCheckpointID: r.HeadCheckpointID, CreatedAt: utc(r.CreatedAt), UpdatedAt: utc(r.UpdatedAt),
			Title: relstore.ConversationTitle(r.FirstTurn), UserID: r.OwnerID, Model: r.LastModel, Turns: int(r.Turns),
		}
	}
	return out, interpretError(ctx, err)
}

func (t tx) ConversationCheckpoints(ctx context.Context, conversationID string) ([]relstore.ChainRow, error) {
	rows, err := t.q.ConversationCheckpoints(ctx, conversationID)
	out := make([]relstore.ChainRow, len(rows))
	for i, r := range rows {
		out[i] = relstore.ChainRow{
			Header:    checkpointFromRow(r.ID, r.ConversationID, r.ParentID.String, r.Length, r.Digest),
			CreatedAt: utc(r.CreatedAt), MessageID: r.MessageID.String,
		}
	}
	return out, interpretError(ctx, err)
}

func (t tx) GetContextAnchor(ctx context.Context, conversationID string) (compaction.Anchor, error) {
	r, err := t.q.GetContextAnchor(ctx, conversationID)
	return compaction.Anchor{ContextTokens: r.ContextTokens, MessageCount: int(r.MessageCount)}, interpretError(ctx, err)
}

func (t tx) PutContextAnchor(ctx context.Context, conversationID string, a compaction.Anchor, now time.Time) error {
	err := t.q.PutContextAnchor(ctx, pgdb.PutContextAnchorParams{
		ConversationID: conversationID, ContextTokens: a.ContextTokens, MessageCount: int64(a.MessageCount), UpdatedAt: now,
	})
	return interpretError(ctx, err)
}

func (t tx) DeleteContextAnchor(ctx context.Context, conversationID string) error {
	return interpretError(ctx, t.q.DeleteContextAnchor(ctx, conversationID))
}

func (t tx) PutPrompt(ctx context.Context, callID string, row relstore.PromptRow) error {
	err := t.q.PutPrompt(ctx, pgdb.PutPromptParams{CallID: callID, Kind: row.Kind, Body: row.Body, CreatedAt: row.At})
	return interpretError(ctx, err)
}

func (t tx) GetPrompt(ctx context.Context, callID string) (relstore.PromptRow, error) {
	r, err := t.q.GetPrompt(ctx, callID)
	return relstore.PromptRow{Kind: r.Kind, Body: r.Body, At: r.CreatedAt}, interpretError(ctx, err)
}

func (t tx) DeletePromptsBefore(ctx context.Context, cutoff time.Time) (int, error) {
	n, err := t.q.DeletePromptsBefore(ctx, cutoff)
	return int(n), interpretError(ctx, err)
}

func (t tx) PromptBytes(ctx context.Context, callID string) (int64, error) {
	n, err := t.q.PromptBytes(ctx, callID)
	return n, interpretError(ctx, err)
}
