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

// The console's lists, context anchors and prompts: relstore builds and
// maps the rows (conversationrows.go, callrows.go), this file binds them to
// the generated queries.

func (t tx) ListCallRecords(ctx context.Context, q relstore.CallListQuery) ([]callrecord.Record, error) {
	rows, err := t.q.ListCallRecords(ctx, pgdb.ListCallRecordsParams(relstore.CallPageOf[time.Time](q)))
	return relstore.Pick(rows, func(r pgdb.CallRecord) callrecord.Record { return relstore.CallRecordColumns[time.Time](r).Record() }), interpretError(ctx, err)
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
	rows, err := t.q.ListConversations(ctx, pgdb.ListConversationsParams(relstore.ConversationPageOf[time.Time](q)))
	return relstore.Pick(rows, func(r pgdb.ListConversationsRow) ports.ConversationSummary {
		return relstore.ConversationListColumns[time.Time](r).Summary()
	}), interpretError(ctx, err)
}

func (t tx) ConversationCheckpoints(ctx context.Context, conversationID string) ([]relstore.ChainRow, error) {
	rows, err := t.q.ConversationCheckpoints(ctx, conversationID)
	return relstore.Pick(rows, func(r pgdb.ConversationCheckpointsRow) relstore.ChainRow {
		return relstore.CheckpointListColumns[time.Time](r).Row()
	}), interpretError(ctx, err)
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
	row, err := t.q.GetPrompt(ctx, callID)
	return relstore.PromptColumns[time.Time](row).Row(), interpretError(ctx, err)
}

func (t tx) DeletePromptsBefore(ctx context.Context, cutoff time.Time) (int, error) {
	n, err := t.q.DeletePromptsBefore(ctx, cutoff)
	return int(n), interpretError(ctx, err)
}

func (t tx) PromptBytes(ctx context.Context, callID string) (int64, error) {
	n, err := t.q.PromptBytes(ctx, callID)
	return n, interpretError(ctx, err)
}
