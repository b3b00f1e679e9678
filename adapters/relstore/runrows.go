package relstore

import (
	"time"

	"keygate/ports"
)

// RunRow is a runs row (sqlc's Run), T the engine's [Stamp].
type RunRow[T Stamp] struct {
	ID                string
	ConversationID    string
	CursorRequestID   string
	ParentRunID       string
	ParentToolCallID  string
	Kind              string
	BaseCheckpointID  string
	HeadCheckpointID  string
	Status            string
	ProviderCallIndex int64
	UsageInput        int64
	UsageCacheRead    int64
	UsageCacheWrite   int64
	UsageOutput       int64
	UsageReasoning    int64
	UsageKnown        int64
	FailureCategory   string
	FailureSummary    string
	CreatedAt         T
	UpdatedAt         T
}

// Run maps the row.
func (r RunRow[T]) Run() ports.Run {
	return ports.Run{
		RunClaim: ports.RunClaim{
			RunID: r.ID, ConversationID: r.ConversationID, CursorRequestID: r.CursorRequestID,
			Kind: r.Kind, ParentRunID: r.ParentRunID, ParentToolCallID: r.ParentToolCallID,
			BaseCheckpointID: r.BaseCheckpointID,
		},
		HeadCheckpointID:  r.HeadCheckpointID,
		Status:            ParseRunStatus(r.Status),
		ProviderCallIndex: int(r.ProviderCallIndex),
		Usage: UsageColumns{
			Input: r.UsageInput, CacheRead: r.UsageCacheRead, CacheWrite: r.UsageCacheWrite,
			Output: r.UsageOutput, Reasoning: r.UsageReasoning, Known: r.UsageKnown,
		}.Usage(),
		FailureCategory: r.FailureCategory,
		FailureSummary:  r.FailureSummary,
		CreatedAt:       TimeOf(r.CreatedAt),
		UpdatedAt:       TimeOf(r.UpdatedAt),
	}
}

// InsertRunArgs are the arguments of InsertRun (sqlc's InsertRunParams).
type InsertRunArgs[T Stamp] struct {
	ID               string
	ConversationID   string
	CursorRequestID  string
	ParentRunID      string
	ParentToolCallID string
	Kind             string
	BaseCheckpointID string
	CreatedAt        T
}

// InsertRunOf is the row a claim inserts.
func InsertRunOf[T Stamp](c ports.RunClaim, now time.Time) InsertRunArgs[T] {
	return InsertRunArgs[T]{
		ID: c.RunID, ConversationID: c.ConversationID, CursorRequestID: c.CursorRequestID,
		ParentRunID: c.ParentRunID, ParentToolCallID: c.ParentToolCallID, Kind: c.Kind,
		BaseCheckpointID: c.BaseCheckpointID, CreatedAt: StampOf[T](now),
	}
}

// FinishRunArgs are the arguments of FinishRun (sqlc's FinishRunParams).
type FinishRunArgs[T Stamp] struct {
	ID              string
	Status          string
	UsageInput      int64
	UsageCacheRead  int64
	UsageCacheWrite int64
	UsageOutput     int64
	UsageReasoning  int64
	UsageKnown      int64
	FailureCategory string
	FailureSummary  string
	UpdatedAt       T
}

// FinishRunOf is how a run's end is stored.
func FinishRunOf[T Stamp](runID string, end ports.RunEnd, now time.Time) FinishRunArgs[T] {
	u := ColumnsOf(end.Usage)
	return FinishRunArgs[T]{
		ID: runID, Status: end.Status.String(),
		UsageInput: u.Input, UsageCacheRead: u.CacheRead, UsageCacheWrite: u.CacheWrite,
		UsageOutput: u.Output, UsageReasoning: u.Reasoning, UsageKnown: u.Known,
		FailureCategory: end.FailureCategory, FailureSummary: end.FailureSummary, UpdatedAt: StampOf[T](now),
	}
}

// ToolRoundArgs are the columns of a tool round (sqlc's InsertToolRoundParams).
type ToolRoundArgs[T Stamp] struct {
	ID               string
	RunID            string
	ConversationID   string
	BaseCheckpointID string
	Plan             []byte
	CreatedAt        T
}

// ToolRoundOf is the row a tool round inserts.
func ToolRoundOf[T Stamp](r ToolRoundRow, now time.Time) ToolRoundArgs[T] {
	return ToolRoundArgs[T]{
		ID: r.ID, RunID: r.RunID, ConversationID: r.ConversationID, BaseCheckpointID: r.BaseID,
		Plan: r.Plan, CreatedAt: StampOf[T](now),
	}
}

// StoredToolRound is a tool_rounds row (sqlc's ToolRound).
type StoredToolRound[T Stamp] struct {
	ID               string
	RunID            string
	ConversationID   string
	BaseCheckpointID string
	Plan             []byte
	CreatedAt        T
	UpdatedAt        T
}

// Row maps the row.
func (r StoredToolRound[T]) Row() ToolRoundRow {
	return ToolRoundRow{ID: r.ID, RunID: r.RunID, ConversationID: r.ConversationID, BaseID: r.BaseCheckpointID, Plan: r.Plan}
}

// Pick maps each row of rows with f: one column of a list, or rows that
// convert to a row type of this package.
func Pick[R, V any](rows []R, f func(R) V) []V {
	out := make([]V, len(rows))
	for i, r := range rows {
		out[i] = f(r)
	}
	return out
}
