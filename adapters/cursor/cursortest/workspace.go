package cursortest

import (
	"context"
	"sync"
	"time"

	agentv1 "keygate/gen/cursor/agent/v1"
)

// Workspace executes the server's exec requests against a directory the
// way the Cursor client does, and answers them on the uplink: the result,
// then exec_client_control_message.stream_close. Each exec runs on its own
// goroutine, so parallel calls complete in the order their work finishes.
// Plug it in with Client.OnMessage = w.Handle.
type Workspace struct {
	// Root is the workspace directory; relative paths resolve against it.
	Root string
	// Delay, when set, holds an exec's answer for the returned duration
	// (to make parallel calls complete out of order).
	Delay func(*agentv1.ExecServerMessage) time.Duration
	// CloseFirst sends stream_close before the result of non-streaming
	// execs, which the client may do (docs/cursor-protocol.md,
	// "stream_close is not a result").
	CloseFirst bool
	// Hold, when set, keeps an exec unanswered until the returned channel
	// closes or the exec is aborted (for restarts and cancels mid-round).
	Hold func(*agentv1.ExecServerMessage) <-chan struct{}
	// MCP answers mcp_args execs; nil answers with an MCP error.
	MCP func(*agentv1.McpArgs) *agentv1.McpResult
	// Answer answers interaction queries (the user's choice); nil leaves
	// them unanswered.
	Answer func(*agentv1.InteractionQuery) *agentv1.InteractionResponse
	// Subagent runs a subagent_args exec (see Client.RunSubagent); nil
	// answers with a subagent error. Backgrounded tells it when the user
	// moved the subagent to the background.
	Subagent func(context.Context, *agentv1.SubagentArgs) *agentv1.SubagentResult
	// AutoRun, when set, is the client's allowlist of executables: a shell
	// command runs without asking only when its exec's parse names its
	// executables, all of them listed; any other is put to the user
	// (Approve). Nil runs every command.
	AutoRun []string
	// Approve is the user's answer to a command AutoRun did not allow; nil
	// declines it (the exec answers rejected).
	Approve func(*agentv1.ShellArgs) bool
	// Diagnostics answers diagnostics_args with the editor's diagnostics
	// of a path; nil answers with none.
	Diagnostics func(path string) []*agentv1.Diagnostic
	// SubagentAwait answers subagent_await_args; nil answers not found.
	SubagentAwait func(*agentv1.SubagentAwaitArgs) *agentv1.SubagentAwaitResult
	// MCPResources are the resources MCP servers offer (list and read);
	// MCPState the servers' state (GetMcpTools).
	MCPResources []MCPResource
	MCPState     []*agentv1.McpStateServer
	// NotifyBackground makes a background shell that exits report it as
	// a BackgroundTaskCompletionAction on the uplink that started it, as
	// the client does.
	NotifyBackground bool

	bg background

	mu      sync.Mutex
	seen    []*agentv1.ExecServerMessage
	aborts  map[uint32]context.CancelFunc
	aborted []uint32
	asked   []string
	wg      sync.WaitGroup
}

// NewWorkspace returns a workspace rooted at dir.
func NewWorkspace(dir string) *Workspace {
	return &Workspace{Root: dir, aborts: map[uint32]context.CancelFunc{}}
}

// Execs returns the exec requests received so far.
func (w *Workspace) Execs() []*agentv1.ExecServerMessage {
	w.mu.Lock()
	defer w.mu.Unlock()
	return append([]*agentv1.ExecServerMessage(nil), w.seen...)
}

// Aborted returns the exec ids the server aborted.
func (w *Workspace) Aborted() []uint32 {
	w.mu.Lock()
	defer w.mu.Unlock()
	return append([]uint32(nil), w.aborted...)
}

// Wait blocks until every started exec has answered.
func (w *Workspace) Wait() { w.wg.Wait() }

// Handle is a Client.OnMessage: it runs exec requests and honours aborts;
// other messages are ignored.
func (w *Workspace) Handle(ctx context.Context, msg *agentv1.AgentServerMessage, reply Sender) error {
	if a := msg.GetExecServerControlMessage().GetAbort(); a != nil {
		w.mu.Lock()
		w.aborted = append(w.aborted, a.GetId())
		if cancel, ok := w.aborts[a.GetId()]; ok {
			cancel()
		}
		w.mu.Unlock()
		return nil
	}
	if q := msg.GetInteractionQuery(); q != nil {
		if w.Answer == nil {
			return nil
		}
		w.wg.Add(1)
		go func() {
			defer w.wg.Done()
			r := w.Answer(q)
			r.Id = q.GetId()
			_ = reply(context.WithoutCancel(ctx), &agentv1.AgentClientMessage{Message: &agentv1.AgentClientMessage_InteractionResponse{InteractionResponse: r}})
		}()
		return nil
	}
	ex := msg.GetExecServerMessage()
	if ex == nil {
		return nil
	}
	ectx, cancel := context.WithCancel(context.WithoutCancel(ctx))
	w.mu.Lock()
	w.seen = append(w.seen, ex)
	w.aborts[ex.GetId()] = cancel
	w.mu.Unlock()
	// A running shell or subagent is one the user may move to the
	// background as soon as the exec was seen, before its goroutine runs.
	unregister := func() {}
	if id := ex.GetShellStreamArgs().GetToolCallId() + ex.GetSubagentArgs().GetToolCallId(); id != "" {
		unregister = w.bg.foreground(id)
	}
	w.wg.Add(1)
	go func() {
		defer w.wg.Done()
		defer cancel()
		defer unregister()
		w.run(ectx, ex, reply)
	}()
	return nil
}

func (w *Workspace) run(ctx context.Context, ex *agentv1.ExecServerMessage, reply Sender) {
	if w.Hold != nil {
		if ch := w.Hold(ex); ch != nil {
			select {
			case <-ch:
			case <-ctx.Done():
				return
			}
		}
	}
	if w.Delay != nil {
		select {
		case <-time.After(w.Delay(ex)):
		case <-ctx.Done():
			return
		}
	}
	send := func(res *agentv1.ExecClientMessage) {
		res.Id, res.ExecId = ex.GetId(), ex.GetExecId()
		_ = reply(ctx, &agentv1.AgentClientMessage{Message: &agentv1.AgentClientMessage_ExecClientMessage{ExecClientMessage: res}})
	}
	if args := ex.GetShellStreamArgs(); args != nil {
		if !w.approved(args) {
			send(&agentv1.ExecClientMessage{Message: &agentv1.ExecClientMessage_ShellStream{ShellStream: &agentv1.ShellStream{
				Event: &agentv1.ShellStream_Rejected{Rejected: &agentv1.ShellRejected{Command: args.GetCommand(),
					WorkingDirectory: args.GetWorkingDirectory(), Reason: "the user declined the command"}}}}})
			_ = reply(ctx, ExecStreamClose(ex.GetId()))
			return
		}
		w.shell(ctx, args, send)
		_ = reply(ctx, ExecStreamClose(ex.GetId()))
		return
	}
	res := w.answer(ex)
	if res.GetMessage() == nil {
		res = w.answerBackground(ctx, ex, reply)
	}
	if args := ex.GetSubagentArgs(); args != nil {
		r := &agentv1.SubagentResult{Result: &agentv1.SubagentResult_Error{Error: &agentv1.SubagentError{Error: "no subagents here"}}}
		if w.Subagent != nil {
			r = w.Subagent(ctx, args)
		}
		res = &agentv1.ExecClientMessage{Message: &agentv1.ExecClientMessage_SubagentResult{SubagentResult: r}}
	}
	if w.CloseFirst {
		_ = reply(ctx, ExecStreamClose(ex.GetId()))
		send(res)
		return
	}
	send(res)
	_ = reply(ctx, ExecStreamClose(ex.GetId()))
}
