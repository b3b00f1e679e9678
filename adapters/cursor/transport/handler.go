package transport

import (
	"context"

	agentv1 "keygate/gen/cursor/agent/v1"
)

// RunHandler is the layer above the transport: it serves the turns of every
// request id. The run engine's Cursor mapping implements it; cursortest has a
// scripted one.
type RunHandler interface {
	// ServeRun serves one turn on its own goroutine and returns when the turn
	// is over. Returning nil ends the turn successfully: the transport lingers
	// (Config.Linger) for another action on the same request id, then ends the
	// stream with {}. A *connect.Error ends the stream with its code, message
	// and details (e.g. aiserver.v1.ErrorDetails); any other error ends it as
	// internal. ctx is cancelled when the turn must stop; context.Cause(ctx)
	// is ErrSuperseded, ErrOrphaned or ErrRegistryClosed. After a cancel the
	// handler may still send (for example exec aborts) until it returns.
	ServeRun(ctx context.Context, turn *Turn) error
}

// Turn is what a RunHandler gets for one turn.
type Turn struct {
	// RequestID is the Cursor request id (the transport's identity).
	RequestID string
	// Request is the run_request that opened the turn. For a turn opened by a
	// stand-alone conversation action while the transport lingered, it is the
	// previous turn's run_request.
	Request *agentv1.AgentRunRequest
	// FollowUp is the stand-alone conversation action (never a cancel) that
	// opened the turn during the linger, or nil when a run_request opened it.
	FollowUp *agentv1.ConversationAction
	// Parent names the parent run of a subagent (both fields or neither).
	Parent Parent
	// Inbox delivers the turn's later client messages in append order.
	Inbox Inbox
	// Output sends server messages and hands out wire ids.
	Output Output

	committed func(ctx context.Context)
}

// Committed tells the transport that the turn's opening messages are
// stored (its first commit): whatever kept the opening append to recover
// the turn had its replica died first may let it go (Registry.OnCommitted).
// The handler calls it once it knows, with the turn's context (it carries
// the caller); calling it again does nothing.
func (t *Turn) Committed(ctx context.Context) {
	if t.committed != nil {
		t.committed(ctx)
	}
}

// Parent identifies the run and tool call that spawned a subagent run
// (headers x-parent-request-id and x-parent-agent-tool-call-id).
type Parent struct {
	RequestID  string
	ToolCallID string
}

// Inbox yields the client messages of a turn that follow its run_request:
// exec results and controls, KV replies, interaction responses, conversation
// actions and heartbeats (already answered by the transport), in append order.
type Inbox interface {
	// Next blocks until the next message or ctx is done (then it returns
	// ctx's error). Messages are never dropped, and come in append order
	// except for an append whose seqno was skipped after Config.GapWait,
	// which comes when it arrives.
	Next(ctx context.Context) (*agentv1.AgentClientMessage, error)
}

// Output is the turn's side of the replayable server stream.
type Output interface {
	// Send appends msg to the stream; every current and future subscriber
	// receives it in Send order. It never blocks on the network. It returns
	// ErrTurnOver once ServeRun has returned or the stream has ended.
	Send(msg *agentv1.AgentServerMessage) error
	// NextExecID returns a fresh ExecServerMessage.id: never 0, never reused
	// within the transport; ErrIDsExhausted at the end of the space.
	NextExecID() (uint32, error)
	// NextInteractionID is NextExecID for InteractionQuery.id.
	NextInteractionID() (uint32, error)
	// NextKvID is NextExecID for KvServerMessage.id.
	NextKvID() (uint32, error)
}
