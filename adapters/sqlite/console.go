package sqlite

import (
	"context"
	"time"

	"keygate/adapters/relstore"
	"keygate/domain/callrecord"
	"keygate/domain/compaction"
	"keygate/gen/sqlc/sqlitedb"
	"keygate/ports"
)

func (t tx) ListCallRecords(ctx context.Context, q relstore.CallListQuery) ([]callrecord.Record, error) {
	rows, err := t.q.ListCallRecords(ctx, sqlitedb.ListCallRecordsParams{
		ModelID: q.ModelID, Status: q.Status, ConversationID: q.ConversationID, UserID: q.UserID,
		Since: ms(q.Since), Until: ms(q.Until), AfterStarted: ms(q.AfterStarted), AfterCallID: q.AfterCallID,
		MaxRows: int64(q.Limit),
	})
	out := make([]callrecord.Record, len(rows))
	for i, r := range rows {
		out[i] = relstore.CallRecordColumns[int64](r).Record()
	}
	return out, interpretError(ctx, err)
}

func (t tx) CountDetailedBefore(ctx context.Context, cutoff time.Time) (int, error) {
	n, err := t.q.CountDetailedBefore(ctx, ms(cutoff))
	return int(n), interpretError(ctx, err)
}

func (t tx) DeleteDetailsBefore(ctx context.Context, cutoff time.Time) error {
	if err := t.q.DeleteChunksBefore(ctx, ms(cutoff)); err != nil {
		return interpretError(ctx, err)
	}
	return interpretError(ctx, t.q.DeleteRequestsBefore(ctx, ms(cutoff)))
}

func (t tx) ListConversations(ctx context.Context, q relstore.PageQuery) ([]ports.ConversationSummary, error) {
	rows, err := t.q.ListConversations(ctx, sqlitedb.ListConversationsParams{
		AfterUpdated: ms(q.AfterUpdated), AfterID: q.AfterID, MaxRows: int64(q.Limit),
	})
	out := make([]ports.ConversationSummary, len(rows))
	for i, r := range rows {
		out[i] = ports.ConversationSummary{
			ID: r.ID, HeadCheckpointID: r.HeadCheckpointID, CreatedAt: fromMS(r.CreatedAt), UpdatedAt: fromMS(r.UpdatedAt),
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
			CreatedAt: fromMS(r.CreatedAt), MessageID: r.MessageID.String,
		}
	}
	return out, interpretError(ctx, err)
}

func (t tx) GetContextAnchor(ctx context.Context, conversationID string) (compaction.Anchor, error) {
	r, err := t.q.GetContextAnchor(ctx, conversationID)
	return compaction.Anchor{ContextTokens: r.ContextTokens, MessageCount: int(r.MessageCount)}, interpretError(ctx, err)
}

func (t tx) PutContextAnchor(ctx context.Context, conversationID string, a compaction.Anchor, now time.Time) error {
	err := t.q.PutContextAnchor(ctx, sqlitedb.PutContextAnchorParams{
		ConversationID: conversationID, ContextTokens: a.ContextTokens, MessageCount: int64(a.MessageCount), UpdatedAt: ms(now),
	})
	return interpretError(ctx, err)
}

func (t tx) DeleteContextAnchor(ctx context.Context, conversationID string) error {
	return interpretError(ctx, t.q.DeleteContextAnchor(ctx, conversationID))
}

func (t tx) PutPrompt(ctx context.Context, callID string, row relstore.PromptRow) error {
	err := t.q.PutPrompt(ctx, sqlitedb.PutPromptParams{CallID: callID, Kind: row.Kind, Body: row.Body, CreatedAt: ms(row.At)})
	return interpretError(ctx, err)
}

func (t tx) GetPrompt(ctx context.Context, callID string) (relstore.PromptRow, error) {
	r, err := t.q.GetPrompt(ctx, callID)
	return relstore.PromptRow{Kind: r.Kind, Body: r.Body, At: fromMS(r.CreatedAt)}, interpretError(ctx, err)
}

func (t tx) DeletePromptsBefore(ctx context.Context, cutoff time.Time) (int, error) {
	n, err := t.q.DeletePromptsBefore(ctx, ms(cutoff))
	return int(n), interpretError(ctx, err)
}

func (t tx) PromptBytes(ctx context.Context, callID string) (int64, error) {
	n, err := t.q.PromptBytes(ctx, callID)
	return n, interpretError(ctx, err)
}
