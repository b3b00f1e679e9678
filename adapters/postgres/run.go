package postgres

import (
	"context"
	"time"

	"keygate/adapters/relstore"
	"keygate/gen/sqlc/pgdb"
	"keygate/ports"
)

// The rows of runs and tool rounds: relstore builds and maps them
// (runrows.go), this file only binds them to the generated queries.

func (t tx) InsertRun(ctx context.Context, c ports.RunClaim, now time.Time) error {
	return interpretError(ctx, t.q.InsertRun(ctx, pgdb.InsertRunParams(relstore.InsertRunOf[time.Time](c, now))))
}

func (t tx) GetRun(ctx context.Context, id string) (ports.Run, error) {
	row, err := t.q.GetRun(ctx, id)
	return relstore.RunRow[time.Time](row).Run(), interpretError(ctx, err)
}

func (t tx) LatestRunByCursorRequest(ctx context.Context, cursorRequestID string) (ports.Run, error) {
	row, err := t.q.LatestRunByCursorRequest(ctx, cursorRequestID)
	return relstore.RunRow[time.Time](row).Run(), interpretError(ctx, err)
}

func (t tx) OwnedRun(ctx context.Context, id string) (ports.Run, error) {
	row, err := t.q.OwnedRun(ctx, id)
	return relstore.RunRow[time.Time](row).Run(), interpretError(ctx, err)
}

func (t tx) SetActiveRun(ctx context.Context, conversationID, runID string, now time.Time) error {
	err := t.q.SetActiveRun(ctx, pgdb.SetActiveRunParams{ID: conversationID, ActiveRunID: relstore.NullString(runID), UpdatedAt: now})
	return interpretError(ctx, err)
}

func (t tx) ClearActiveRun(ctx context.Context, conversationID, runID string, now time.Time) error {
	err := t.q.ClearActiveRun(ctx, pgdb.ClearActiveRunParams{ID: conversationID, ActiveRunID: relstore.NullString(runID), UpdatedAt: now})
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
	n, err := t.q.FinishRun(ctx, pgdb.FinishRunParams(relstore.FinishRunOf[time.Time](runID, end, now)))
	return n == 1, interpretError(ctx, err)
}

func (t tx) InsertToolRound(ctx context.Context, r relstore.ToolRoundRow, now time.Time) error {
	return interpretError(ctx, t.q.InsertToolRound(ctx, pgdb.InsertToolRoundParams(relstore.ToolRoundOf[time.Time](r, now))))
}

func (t tx) GetToolRound(ctx context.Context, id string) (relstore.ToolRoundRow, error) {
	row, err := t.q.GetToolRound(ctx, id)
	return relstore.StoredToolRound[time.Time](row).Row(), interpretError(ctx, err)
}

func (t tx) ToolRoundResults(ctx context.Context, roundID string) ([]string, error) {
	rows, err := t.q.ToolRoundResults(ctx, roundID)
	return relstore.Pick(rows, func(r pgdb.ToolRoundResult) string { return r.CallID }), interpretError(ctx, err)
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
