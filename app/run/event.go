package run

import (
	"sync"
	"time"

	"keygate/domain/conversation"
	"keygate/domain/llm"
)

// Event is one run event, sent on [Handle.Events] in the order the engine
// produced them. The concrete types are listed below; a transport switches
// on them.
type Event interface{ runEvent() }

// TextDelta is visible model text.
type TextDelta struct{ Text string }

// ThinkingDelta is model thinking text.
type ThinkingDelta struct{ Text string }

// ThinkingEnd closes a thinking block; Duration is measured on the engine's
// clock from the block's start.
type ThinkingEnd struct{ Duration time.Duration }

// ToolCallStart opens a tool card. Index and CallID are the model's; the
// name is already normalised. ModelCallID is the provider attempt's call id.
type ToolCallStart struct {
	Index       int
	CallID      string
	Name        string
	ModelCallID string
}

// ToolCallArgsDelta is a fragment of a call's argument text.
type ToolCallArgsDelta struct {
	Index  int
	CallID string
	Text   string
}

// ToolCallEnd closes a call's arguments.
type ToolCallEnd struct {
	Index  int
	CallID string
}

// ToolCallFailed closes a tool card of a failed or interrupted attempt: the
// call was shown but will never run.
type ToolCallFailed struct {
	Index  int
	CallID string
}

// Usage is the provider's authoritative usage of one model call (a cycle
// attempt or a summary call).
type Usage struct{ Usage llm.Usage }

// UsageSnapshot is the engine's estimate of the context size in tokens.
type UsageSnapshot struct{ Tokens int64 }

// ExecuteToolRound asks the transport to run Calls on the client, in
// parallel; their results come back through [Handle.ToolResult] in any
// order. Calls holds only the dispatchable calls (malformed arguments
// completed as tool errors already).
type ExecuteToolRound struct {
	RoundID string
	Calls   []llm.ToolCall
	// Lead is the round's text, thinking and replay state (no calls) while
	// no call of the round is committed; once one is, they are history,
	// carried by its part, and Lead is empty. A transport that keeps the
	// open round for a resume keeps them with it.
	Lead llm.Assistant
}

// MessagesCommitted says the conversation head is now CheckpointID. When
// Barrier is set the engine does not continue until the transport called
// Barrier.Ack, that is until the checkpoint is published to the client.
type MessagesCommitted struct {
	CheckpointID string
	// Messages is the checkpoint's full message list when the engine has
	// it at hand (it appended the messages itself to a list it knew), so
	// the transport need not load it; nil otherwise. It is shared: read it,
	// never modify it.
	Messages []conversation.Message
	// RoundVersion is the number of results committed in the round a
	// tool-round cause refers to.
	RoundVersion int
	Cause        Cause
	Barrier      *Barrier
}

// CycleInterrupted says the running model cycle (or its retry wait) was
// stopped by a newer message or a cancel.
type CycleInterrupted struct{}

// ModelAttemptFailed reports a failed provider attempt. Retrying says
// whether the engine tries again, after Delay.
type ModelAttemptFailed struct {
	Attempt  int
	Message  string
	Retrying bool
	Delay    time.Duration
}

// StatusKind says what a ModelStatus reports.
type StatusKind uint8

// Status kinds.
const (
	// StatusRetryScheduled: an attempt failed and another follows after
	// Wait. It is sent at once, before the wait.
	StatusRetryScheduled StatusKind = iota + 1
	// StatusStillWaiting: a retry wait goes on (Wait left), or the retried
	// attempt has not answered yet (Wait 0).
	StatusStillWaiting
	// StatusRetrying: the next attempt starts.
	StatusRetrying
)

// String returns the kind's name.
func (k StatusKind) String() string {
	switch k {
	case StatusRetryScheduled:
		return "retry_scheduled"
	case StatusStillWaiting:
		return "still_waiting"
	case StatusRetrying:
		return "retrying"
	default:
		return "unknown"
	}
}

// ModelStatus tells the user why a model cycle has not answered yet while
// the engine retries it (docs/engine.md, "Retries"): at once when a
// retryable attempt failed, when the next attempt starts, and every
// Limits.StatusInterval between, so that a retrying run never waits in
// silence. Line is the sentence the user reads; the other fields say the
// same for a transport that words its own.
type ModelStatus struct {
	Kind StatusKind
	// Attempt is the attempt that failed (StatusRetryScheduled) or the
	// next one; MaxAttempts is the most the cycle makes.
	Attempt, MaxAttempts int
	// Reason is why the last attempt failed, for the user ("the provider
	// answered 503: overloaded"); credentials are redacted.
	Reason string
	// Wait is what is left of the wait before the next attempt; 0 once it
	// runs.
	Wait time.Duration
	// Elapsed is the time since the cycle's first attempt started, on the
	// engine's clock.
	Elapsed time.Duration
	Line    string
}

// ModelStatusEnd closes the statuses of a model cycle: the retried attempt
// began to answer, or the cycle ended (answered, failed or interrupted).
// Duration is how long the statuses were shown, on the engine's clock.
type ModelStatusEnd struct{ Duration time.Duration }

// CompactionStarted opens an automatic compaction.
type CompactionStarted struct{}

// CompactionCompleted closes an automatic compaction. Fallback says the
// summary call failed or timed out and the deterministic fallback summary
// was used.
type CompactionCompleted struct{ Fallback bool }

// Ended is the last event; the channel closes after it.
type Ended struct{ Outcome Outcome }

func (TextDelta) runEvent()           {}
func (ThinkingDelta) runEvent()       {}
func (ThinkingEnd) runEvent()         {}
func (ToolCallStart) runEvent()       {}
func (ToolCallArgsDelta) runEvent()   {}
func (ToolCallEnd) runEvent()         {}
func (ToolCallFailed) runEvent()      {}
func (Usage) runEvent()               {}
func (UsageSnapshot) runEvent()       {}
func (ExecuteToolRound) runEvent()    {}
func (MessagesCommitted) runEvent()   {}
func (CycleInterrupted) runEvent()    {}
func (ModelAttemptFailed) runEvent()  {}
func (ModelStatus) runEvent()         {}
func (ModelStatusEnd) runEvent()      {}
func (CompactionStarted) runEvent()   {}
func (CompactionCompleted) runEvent() {}
func (Ended) runEvent()               {}

// CauseKind says why messages were committed.
type CauseKind uint8

// Commit causes.
const (
	CauseInitialMessages CauseKind = iota + 1
	CauseToolRoundStarted
	CauseToolResult
	CauseFinalTurn
	CauseCompaction
	CauseRuntimeEvent
	CauseInterruptedOutput
)

// String returns the cause name.
func (k CauseKind) String() string {
	switch k {
	case CauseInitialMessages:
		return "initial_messages"
	case CauseToolRoundStarted:
		return "tool_round_started"
	case CauseToolResult:
		return "tool_result"
	case CauseFinalTurn:
		return "final_turn"
	case CauseCompaction:
		return "compaction"
	case CauseRuntimeEvent:
		return "runtime_event"
	case CauseInterruptedOutput:
		return "interrupted_output"
	default:
		return "unknown"
	}
}

// Cause is why messages were committed, with the fields of its kind.
type Cause struct {
	Kind CauseKind
	// RoundID is set for tool-round causes; CallID for a tool result.
	RoundID string
	CallID  string
	// Interrupted marks results written by an interruption.
	Interrupted bool
	// EventID is the runtime event of a RuntimeEvent commit.
	EventID string
	// Summary is the summary text of a compaction.
	Summary string
}

// Barrier is a commit barrier: the engine waits until Ack is called (or
// the run is cancelled). Ack is safe to call more than once and from any
// goroutine.
type Barrier struct {
	once sync.Once
	done chan struct{}
}

func newBarrier() *Barrier { return &Barrier{done: make(chan struct{})} }

// Ack confirms that the checkpoint was published to the client.
func (b *Barrier) Ack() { b.once.Do(func() { close(b.done) }) }

// Done is closed once Ack was called.
func (b *Barrier) Done() <-chan struct{} { return b.done }
