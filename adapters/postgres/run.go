package postgres

import (
	"context"
	"time"

	"keygate/adapters/relstore"
	"keygate/gen/sqlc/pgdb"
	"keygate/ports"
)

func (t tx) InsertRun(ctx context.Context, c ports.RunClaim, now time.Time) error {
	err := t.q.InsertRun(ctx, pgdb.InsertRunParams{
		ID: c.RunID, ConversationID: c.ConversationID, CursorRequestID: c.CursorRequestID,
		ParentRunID: c.ParentRunID, ParentToolCallID: c.ParentToolCallID, Kind: c.Kind,
		BaseCheckpointID: c.BaseCheckpointID, CreatedAt: now,
	})
	return interpretError(ctx, err)
}

func (t tx) GetRun(ctx context.Context, id string) (ports.Run, error) {
	row, err := t.q.GetRun(ctx, id)
	return runFromRow(row), interpretError(ctx, err)
}

func (t tx) LatestRunByCursorRequest(ctx context.Context, cursorRequestID string) (ports.Run, error) {
	row, err := t.q.LatestRunByCursorRequest(ctx, cursorRequestID)
	return runFromRow(row), interpretError(ctx, err)
}

func (t tx) OwnedRun(ctx context.Context, id string) (ports.Run, error) {
	row, err := t.q.OwnedRun(ctx, id)
	return runFromRow(row), interpretError(ctx, err)
}

func (t tx) SetActiveRun(ctx context.Context, conversationID, runID string, now time.Time) error {
	err := t.q.SetActiveRun(ctx, pgdb.SetActiveRunParams{ID: conversationID, ActiveRunID: pgText(runID), UpdatedAt: now})
	return interpretError(ctx, err)
}

func (t tx) ClearActiveRun(ctx context.Context, conversationID, runID string, now time.Time) error {
	err := t.q.ClearActiveRun(ctx, pgdb.ClearActiveRunParams{ID: conversationID, ActiveRunID: pgText(runID), UpdatedAt: now})
	return interpretError(ctx, err)
}

func (t tx) CancelRun(ctx context.Context, runID string, now time.Time) error {
	return interpretError(ctx, t.q.CancelRun(ctx, pgdb.CancelRunParams{ID: runID, UpdatedAt: now}))
}

func (t tx) CancelRunningCalls(ctx context.Context, runID string, now time.Time) error {
	return interpretError(ctx, t.q.CancelRunningCalls(ctx, pgdb.CancelRunningCallsParams{RunID: runID, FinishedAt: now}))
}

func (t tx) SetRunHead(ctx context.Context, runID, headID string, now time.Time) error {
	err := t.q.SetRunHead(ctx, pgdb.SetRunHeadParams{ID: runID, HeadCheckpointID: headID, UpdatedAt: now})
	return interpretError(ctx, err)
}

func (t tx) NextProviderCall(ctx context.Context, runID string, now time.Time) (int, error) {
	idx, err := t.q.NextProviderCall(ctx, pgdb.NextProviderCallParams{ID: runID, UpdatedAt: now})
	return int(idx), interpretError(ctx, err)
}

func (t tx) FinishRun(ctx context.Context, runID string, end ports.RunEnd, now time.Time) (bool, error) {
	u := relstore.ColumnsOf(end.Usage)
	n, err := t.q.FinishRun(ctx, pgdb.FinishRunParams{
		ID: runID, Status: end.Status.String(),
		UsageInput: u.Input, UsageCacheRead: u.CacheRead, UsageCacheWrite: u.CacheWrite,
		UsageOutput: u.Output, UsageReasoning: u.Reasoning, UsageKnown: u.Known,
		FailureCategory: end.FailureCategory, FailureSummary: end.FailureSummary, UpdatedAt: now,
	})
	return n == 1, interpretError(ctx, err)
}

func (t tx) InsertToolRound(ctx context.Context, r relstore.ToolRoundRow, now time.Time) error {
	err := t.q.InsertToolRound(ctx, pgdb.InsertToolRoundParams{
		ID: r.ID, RunID: r.RunID, ConversationID: r.ConversationID, BaseCheckpointID: r.BaseID,
		Plan: r.Plan, CreatedAt: now,
	})
	return interpretError(ctx, err)
}

func (t tx) GetToolRound(ctx context.Context, id string) (relstore.ToolRoundRow, error) {
	row, err := t.q.GetToolRound(ctx, id)
	return relstore.ToolRoundRow{
		ID: row.ID, RunID: row.RunID, ConversationID: row.ConversationID, BaseID: row.BaseCheckpointID, Plan: row.Plan,
	}, interpretError(ctx, err)
}

func (t tx) ToolRoundResults(ctx context.Context, roundID string) ([]string, error) {
	rows, err := t.q.ToolRoundResults(ctx, roundID)
	ids := make([]string, len(rows))
	for i, r := range rows {
		ids[i] = r.CallID
	}
	return ids, interpretError(ctx, err)
}

func (t tx) InsertToolRoundResult(ctx context.Context, roundID string, seq int, callID, checkpointID string, now time.Time) error {
	err := t.q.InsertToolRoundResult(ctx, pgdb.InsertToolRoundResultParams{
		RoundID: roundID, Seq: int64(seq), CallID: callID, CheckpointID: checkpointID, CreatedAt: now,
	})
	if err == nil {
		err = t.q.TouchToolRound(ctx, pgdb.TouchToolRoundParams{ID: roundID, UpdatedAt: now})
	}
	return interpretError(ctx, err)
}

func runFromRow(r pgdb.Run) ports.Run {
	return ports.Run{
		RunClaim: ports.RunClaim{
			RunID: r.ID, ConversationID: r.ConversationID, CursorRequestID: r.CursorRequestID,
			Kind: r.Kind, ParentRunID: r.ParentRunID, ParentToolCallID: r.ParentToolCallID,
			BaseCheckpointID: r.BaseCheckpointID,
		},
		HeadCheckpointID:  r.HeadCheckpointID,
		Status:            relstore.ParseRunStatus(r.Status),
		ProviderCallIndex: int(r.ProviderCallIndex),
		Usage: relstore.UsageColumns{
			Input: r.UsageInput, CacheRead: r.UsageCacheRead, CacheWrite: r.UsageCacheWrite,
			Output: r.UsageOutput, Reasoning: r.UsageReasoning, Known: r.UsageKnown,
		}.Usage(),
		FailureCategory: r.FailureCategory,
		FailureSummary:  r.FailureSummary,
		CreatedAt:       utc(r.CreatedAt),
		UpdatedAt:       utc(r.UpdatedAt),
	}
}
