package ports

import (
	"context"

	"keygate/domain/conversation"
	"keygate/domain/llm"
	"keygate/domain/toolround"
)

// ToolRoundStore persists tool rounds and commits their results. A result
// enters history together with its call (toolround.Round.Commit builds both
// messages) in the same transaction that records the completion, so no
// checkpoint ever holds a call without its result and no completion is
// recorded without its checkpoint.
//
// All methods return ctx.Err() (wrapped) on a cancelled context and then
// have written nothing.
type ToolRoundStore interface {
	// Start stores a new round of a run, based on the conversation head the
	// model saw. ErrNotOwner unless the run is running and active;
	// conversation.ErrStaleHead unless baseCheckpointID is the head;
	// starting a stored round again is a no-op when the plan is identical
	// and ErrConflict otherwise.
	Start(ctx context.Context, runID, baseCheckpointID string, round toolround.Round) error

	// Round returns a stored round with its completions, or ErrNotFound.
	Round(ctx context.Context, roundID string) (toolround.Round, error)

	// Commit records the result of one call, in completion order, appending
	// the call's part and its result to the conversation head in one
	// transaction. A result for an already completed call is reported as
	// Duplicate and changes nothing. ErrNotOwner unless the run owns the
	// conversation; ErrNotFound for an unknown round; *toolround.UnknownCallError
	// for a call the round does not hold.
	Commit(ctx context.Context, runID, roundID string, result llm.ToolResult) (ToolRoundCommit, error)

	// Interrupt completes every pending call of the round in one
	// transaction (toolround.Round.Interrupt): with its detached result if
	// one is given, otherwise with the interruption error. Errors as Commit.
	Interrupt(ctx context.Context, runID, roundID string, detached ...llm.ToolResult) (ToolRoundCommit, error)
}

// ToolRoundCommit is what a commit changed.
type ToolRoundCommit struct {
	// Round is the round after the commit.
	Round toolround.Round
	// Checkpoint is the conversation head after the commit.
	Checkpoint conversation.Checkpoint
	// Duplicate reports a result for an already completed call.
	Duplicate bool
	// Settled reports that no call of the round is pending.
	Settled bool
}
