package run

import (
	"keygate/domain/conversation"
	"keygate/domain/llm"
	"keygate/domain/projection"
	"keygate/ports"
)

// Kind says whether a run is a conversation's own run or a subagent's.
type Kind uint8

// Run kinds.
const (
	// KindRoot is a run started by a client action on a conversation.
	KindRoot Kind = iota + 1
	// KindSubagent is a child run: its own conversation, spawned by a tool
	// call of a parent run.
	KindSubagent
)

// String returns the kind as the run store persists it.
func (k Kind) String() string {
	if k == KindSubagent {
		return "subagent"
	}
	return "root"
}

// ActionKind is what a run was started to do.
type ActionKind uint8

// Actions.
const (
	// ActionStart appends the initial messages and runs model cycles.
	ActionStart ActionKind = iota + 1
	// ActionResume continues a conversation after a restart or a broken
	// stream: it first finishes a pending tool round, then runs model
	// cycles, unless history already ends with a finished turn.
	ActionResume
	// ActionCompact summarises the whole history (/summarize) and replaces
	// the checkpoint with the summary.
	ActionCompact
	// ActionRecord appends the initial messages and ends without asking
	// the model: the turn only adds to history (the output of a command
	// the user ran in their own shell).
	ActionRecord
)

// Action is the run's action with its parameters.
type Action struct {
	Kind ActionKind
	// FromRunID (Resume) names the run being resumed. The engine looks for
	// its pending tool round: the round of its last model cycle, or the
	// round the head checkpoint ends in. Empty: the running run this one
	// preempts, if any.
	FromRunID string
	// PendingRoundID (Resume) names a stored round whose pending calls are
	// re-executed before the first model cycle; it wins over FromRunID.
	PendingRoundID string
	// PendingCalls (Resume) is the open tool round as the client holds it
	// (its checkpoint's pending calls, with the round's text, thinking and
	// replay state). When the store does not know the round PendingRoundID
	// names (or none is named), the calls history does not answer yet become
	// the round "<run>:round:resume" and run before any model call: a lost
	// or restored store never makes the model sample the round again.
	PendingCalls *llm.Assistant
}

// Model is how to call the model of a run.
type Model struct {
	Endpoint ports.Endpoint
	// Settings are the request's model settings. An empty CacheKey is
	// filled with projection.CacheKey of the conversation.
	Settings projection.Settings
	// ContextWindow is the window in tokens used for automatic compaction;
	// 0 means unknown (no automatic compaction before a call).
	ContextWindow int64
}

// PreparedRun is the input of [Engine.Start]: everything a transport
// decided before the engine takes over.
type PreparedRun struct {
	// RunID is "<cursor request id>:<8 hex>" (conversation.RunID).
	RunID           string
	CursorRequestID string
	ConversationID  string
	Kind            Kind
	// ParentRunID and ParentToolCallID name the spawning run and tool call
	// of a subagent run.
	ParentRunID      string
	ParentToolCallID string
	Model            Model
	// Prompt is the mode's instructions and tools. For ActionCompact it is
	// the compaction prompt; tools are never sent on a summary call.
	Prompt projection.Prompt
	// InitialMessages are the new messages of this turn (request context,
	// runtime message), appended once each, in order.
	InitialMessages []conversation.Message
	Action          Action
	// BaseCheckpointID is the checkpoint the turn builds on; empty means the
	// conversation's head. A base other than the head branches (rollback or
	// edit) and needs at least one initial message.
	BaseCheckpointID string
	// History, when HistoryOf is set, is the full message list of the
	// checkpoint HistoryOf as the transport read it to compile the turn
	// (so the conversation exists: Start does not open it again).
	// When that checkpoint is the run's base the engine builds on the list
	// instead of loading it again; otherwise (the head moved meanwhile) it
	// loads. The engine does not modify it.
	History   []conversation.Message
	HistoryOf string
}
