package ports

import (
	"context"
	"time"

	"keygate/domain/conversation"
	"keygate/domain/llm"
)

// RunStore persists run lifecycles and decides which run owns a
// conversation: at most one run per conversation is active, and claiming a
// new run preempts the previous one (docs/engine.md, "One run per
// conversation and preemption").
//
// All methods return ctx.Err() (wrapped) on a cancelled context and then
// have written nothing.
type RunStore interface {
	// Claim stores a new running run and makes it the conversation's active
	// run in one transaction. A running run it replaces is marked
	// cancelled, its running call records are closed as cancelled, and its
	// id is returned ("" when there was none). Of concurrent claims on one
	// conversation each succeeds in turn and exactly one ends up active.
	// ErrNotFound if the conversation or base checkpoint does not exist;
	// ErrConflict if the run id was claimed before.
	Claim(ctx context.Context, c RunClaim) (replaced string, err error)

	// ClaimTurn starts a turn in one transaction: Claim, then the turn's
	// initial messages applied on behalf of the new run as
	// ConversationStore.Apply applies them (appended to the run's base,
	// which is the head, or branched from the head when the base is an
	// older checkpoint), then BeginProviderCall (the run's first model
	// cycle, index 0). Its errors are those of the three; on any error
	// nothing is written.
	ClaimTurn(ctx context.Context, c RunClaim, initial []conversation.Message) (ClaimedTurn, error)

	// Run returns the run, or ErrNotFound.
	Run(ctx context.Context, runID string) (Run, error)

	// LatestForRequest returns the newest run claimed for a Cursor request
	// id (a reused request id maps to its newest execution), or ErrNotFound.
	LatestForRequest(ctx context.Context, cursorRequestID string) (Run, error)

	// BeginProviderCall increments and returns the run's provider call
	// index (0 for the first model cycle). ErrNotOwner unless the run is
	// running and active; ErrNotFound for an unknown run.
	BeginProviderCall(ctx context.Context, runID string) (int, error)

	// Finish moves a running run to its final status with its accumulated
	// usage and releases the conversation. ErrNotOwner if the run is not
	// running any more (it was preempted or finished), in which case
	// nothing changes: a replaced run cannot overwrite "cancelled".
	// ErrNotFound for an unknown run.
	Finish(ctx context.Context, runID string, end RunEnd) error
}

// RunStatus is the lifecycle state of a run.
type RunStatus uint8

// Run statuses; Running is the only non-final one.
const (
	RunRunning RunStatus = iota + 1
	RunCompleted
	RunCancelled
	RunFailed
)

// String returns the lower-case status name stores persist.
func (s RunStatus) String() string {
	switch s {
	case RunRunning:
		return "running"
	case RunCompleted:
		return "completed"
	case RunCancelled:
		return "cancelled"
	case RunFailed:
		return "failed"
	default:
		return "unknown"
	}
}

// RunClaim is the input of [RunStore.Claim].
type RunClaim struct {
	RunID           string
	ConversationID  string
	CursorRequestID string
	// Kind is "root" or "subagent"; ParentRunID and ParentToolCallID name
	// the spawning run and tool call of a subagent.
	Kind             string
	ParentRunID      string
	ParentToolCallID string
	// BaseCheckpointID is the checkpoint the run starts from; empty means
	// the conversation's current head.
	BaseCheckpointID string
}

// ClaimedTurn is what [RunStore.ClaimTurn] did.
type ClaimedTurn struct {
	// Replaced is the running run the claim replaced, "" when none.
	Replaced string
	// Base is the run's base checkpoint, Head the conversation's head
	// before the initial messages were applied.
	Base, Head conversation.Checkpoint
	// Applied is the decision the initial messages were applied with;
	// Applied.Checkpoint is then the head and the run's head.
	Applied conversation.Decision
	// CallIndex is the index BeginProviderCall returned (0).
	CallIndex int
}

// Run is a stored run.
type Run struct {
	RunClaim
	// HeadCheckpointID is the last checkpoint the run wrote (its base until
	// it writes).
	HeadCheckpointID string
	Status           RunStatus
	// ProviderCallIndex is the index of the last model cycle, -1 before the
	// first.
	ProviderCallIndex int
	Usage             llm.Usage
	FailureCategory   string
	FailureSummary    string
	CreatedAt         time.Time
	UpdatedAt         time.Time
}

// RunEnd is how a run ended: Status is final, Usage is the sum over its
// model cycles, and the failure fields are set only for RunFailed.
type RunEnd struct {
	Status          RunStatus
	Usage           llm.Usage
	FailureCategory string
	FailureSummary  string
}
