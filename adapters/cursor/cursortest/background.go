package cursortest

import (
	"context"
	"errors"
	"io"
	"os/exec"
	"strconv"
	"sync"

	agentv1 "keygate/gen/cursor/agent/v1"
)

// MCPResource is a resource an MCP server offers, with its text.
type MCPResource struct {
	Server, URI, Name, Text string
}

// background is the client's side of background work: shells started in
// the background (by id) and the running shell and subagent execs the user
// may move there (by tool call id).
type background struct {
	mu     sync.Mutex
	next   uint32
	shells map[uint32]*bgShell
	// running maps a running exec's tool call id to the channel closed
	// when the user moves it to the background; a moved exec stays until
	// it unregisters, so that it still sees the move if it looks late.
	running map[string]chan struct{}
}

type bgShell struct {
	cmd   *exec.Cmd
	stdin io.WriteCloser
}

// foreground registers a running exec the user may move to the
// background; the returned func unregisters it.
func (b *background) foreground(toolCallID string) func() {
	b.mu.Lock()
	defer b.mu.Unlock()
	if b.running == nil {
		b.running = map[string]chan struct{}{}
	}
	ch := make(chan struct{})
	b.running[toolCallID] = ch
	return func() {
		b.mu.Lock()
		defer b.mu.Unlock()
		if b.running[toolCallID] == ch {
			delete(b.running, toolCallID)
		}
	}
}

// moved is closed when the user moves the exec of toolCallID to the
// background (nil, never closed, for an exec that is not running).
func (b *background) moved(toolCallID string) <-chan struct{} {
	b.mu.Lock()
	defer b.mu.Unlock()
	return b.running[toolCallID]
}

// move moves a running exec to the background; false when none runs or
// it was moved already.
func (b *background) move(toolCallID string) bool {
	b.mu.Lock()
	defer b.mu.Unlock()
	ch := b.running[toolCallID]
	if ch == nil {
		return false
	}
	select {
	case <-ch: // moved already
		return false
	default:
		close(ch)
		return true
	}
}

// Backgrounded is closed when the user moves the subagent or shell of
// toolCallID to the background: a Subagent hook selects on it.
func (w *Workspace) Backgrounded(toolCallID string) <-chan struct{} { return w.bg.moved(toolCallID) }

// answerBackground answers the execs of background work and MCP
// resources; an empty message for anything else.
func (w *Workspace) answerBackground(ctx context.Context, ex *agentv1.ExecServerMessage, reply Sender) *agentv1.ExecClientMessage {
	switch {
	case ex.GetBackgroundShellSpawnArgs() != nil:
		return &agentv1.ExecClientMessage{Message: &agentv1.ExecClientMessage_BackgroundShellSpawnResult{
			BackgroundShellSpawnResult: w.spawn(ctx, ex.GetBackgroundShellSpawnArgs(), reply)}}
	case ex.GetWriteShellStdinArgs() != nil:
		a := ex.GetWriteShellStdinArgs()
		w.bg.mu.Lock()
		sh := w.bg.shells[a.GetShellId()]
		w.bg.mu.Unlock()
		r := &agentv1.WriteShellStdinResult{Result: &agentv1.WriteShellStdinResult_Error{Error: &agentv1.WriteShellStdinError{Error: "no such shell"}}}
		if sh != nil {
			if _, err := io.WriteString(sh.stdin, a.GetChars()); err == nil {
				r.Result = &agentv1.WriteShellStdinResult_Success{Success: &agentv1.WriteShellStdinSuccess{ShellId: a.GetShellId()}}
			}
		}
		return &agentv1.ExecClientMessage{Message: &agentv1.ExecClientMessage_WriteShellStdinResult{WriteShellStdinResult: r}}
	case ex.GetForceBackgroundShellArgs() != nil:
		st := agentv1.ForceBackgroundShellStatus_FORCE_BACKGROUND_SHELL_STATUS_NOT_FOUND
		if w.bg.move(ex.GetForceBackgroundShellArgs().GetToolCallId()) {
			st = agentv1.ForceBackgroundShellStatus_FORCE_BACKGROUND_SHELL_STATUS_ACCEPTED
		}
		return &agentv1.ExecClientMessage{Message: &agentv1.ExecClientMessage_ForceBackgroundShellResult{
			ForceBackgroundShellResult: &agentv1.ForceBackgroundShellResult{Status: st}}}
	case ex.GetForceBackgroundSubagentArgs() != nil:
		st := agentv1.ForceBackgroundSubagentStatus_FORCE_BACKGROUND_SUBAGENT_STATUS_NOT_FOUND
		if w.bg.move(ex.GetForceBackgroundSubagentArgs().GetToolCallId()) {
			st = agentv1.ForceBackgroundSubagentStatus_FORCE_BACKGROUND_SUBAGENT_STATUS_ACCEPTED
		}
		return &agentv1.ExecClientMessage{Message: &agentv1.ExecClientMessage_ForceBackgroundSubagentResult{
			ForceBackgroundSubagentResult: &agentv1.ForceBackgroundSubagentResult{Status: st}}}
	case ex.GetSubagentAwaitArgs() != nil:
		r := &agentv1.SubagentAwaitResult{Result: &agentv1.SubagentAwaitResult_NotFound{NotFound: &agentv1.SubagentAwaitNotFound{
			AgentId: ex.GetSubagentAwaitArgs().GetAgentId()}}}
		if w.SubagentAwait != nil {
			r = w.SubagentAwait(ex.GetSubagentAwaitArgs())
		}
		return &agentv1.ExecClientMessage{Message: &agentv1.ExecClientMessage_SubagentAwaitResult{SubagentAwaitResult: r}}
	case ex.GetListMcpResourcesExecArgs() != nil:
		s := &agentv1.ListMcpResourcesSuccess{}
		for _, r := range w.MCPResources {
			if srv := ex.GetListMcpResourcesExecArgs().GetServer(); srv == "" || srv == r.Server {
				name := r.Name
				s.Resources = append(s.Resources, &agentv1.ListMcpResourcesExecResult_McpResource{Uri: r.URI, Server: r.Server, Name: &name})
			}
		}
		return &agentv1.ExecClientMessage{Message: &agentv1.ExecClientMessage_ListMcpResourcesExecResult{ListMcpResourcesExecResult: &agentv1.ListMcpResourcesExecResult{
			Result: &agentv1.ListMcpResourcesExecResult_Success{Success: s}}}}
	case ex.GetReadMcpResourceExecArgs() != nil:
		a := ex.GetReadMcpResourceExecArgs()
		r := &agentv1.ReadMcpResourceExecResult{Result: &agentv1.ReadMcpResourceExecResult_NotFound{NotFound: &agentv1.ReadMcpResourceNotFound{Uri: a.GetUri()}}}
		for _, res := range w.MCPResources {
			if res.Server == a.GetServer() && res.URI == a.GetUri() {
				r.Result = &agentv1.ReadMcpResourceExecResult_Success{Success: &agentv1.ReadMcpResourceSuccess{Uri: res.URI,
					Content: &agentv1.ReadMcpResourceSuccess_Text{Text: res.Text}}}
			}
		}
		return &agentv1.ExecClientMessage{Message: &agentv1.ExecClientMessage_ReadMcpResourceExecResult{ReadMcpResourceExecResult: r}}
	case ex.GetMcpStateExecArgs() != nil:
		return &agentv1.ExecClientMessage{Message: &agentv1.ExecClientMessage_McpStateExecResult{McpStateExecResult: &agentv1.McpStateExecResult{
			Result: &agentv1.McpStateExecResult_Success{Success: &agentv1.McpStateSuccess{Servers: w.MCPState}}}}}
	}
	return &agentv1.ExecClientMessage{}
}

// spawn starts a command in the background with its stdin open; when it
// exits and NotifyBackground is set, the workspace reports it on reply.
func (w *Workspace) spawn(ctx context.Context, a *agentv1.BackgroundShellSpawnArgs, reply Sender) *agentv1.BackgroundShellSpawnResult {
	fail := func(err error) *agentv1.BackgroundShellSpawnResult {
		return &agentv1.BackgroundShellSpawnResult{Result: &agentv1.BackgroundShellSpawnResult_Error{Error: &agentv1.BackgroundShellSpawnError{
			Command: a.GetCommand(), Error: err.Error()}}}
	}
	cmd := exec.Command("sh", "-c", a.GetCommand())
	cmd.Dir = w.Root
	if a.GetWorkingDirectory() != "" {
		cmd.Dir = w.abs(a.GetWorkingDirectory())
	}
	stdin, err := cmd.StdinPipe()
	if err != nil {
		return fail(err)
	}
	if err := cmd.Start(); err != nil {
		return fail(err)
	}
	w.bg.mu.Lock()
	if w.bg.shells == nil {
		w.bg.shells = map[uint32]*bgShell{}
	}
	w.bg.next++
	id := w.bg.next
	w.bg.shells[id] = &bgShell{cmd: cmd, stdin: stdin}
	w.bg.mu.Unlock()
	w.wg.Add(1)
	go func() {
		defer w.wg.Done()
		err := cmd.Wait()
		status := agentv1.BackgroundTaskStatus_BACKGROUND_TASK_STATUS_SUCCESS
		var exitErr *exec.ExitError
		if errors.As(err, &exitErr) {
			status = agentv1.BackgroundTaskStatus_BACKGROUND_TASK_STATUS_ERROR
		}
		if !w.NotifyBackground {
			return
		}
		detail := "exited"
		_ = reply(context.WithoutCancel(ctx), Action(BackgroundCompletion(&agentv1.BackgroundTaskCompletion{TaskId: strconv.Itoa(int(id)),
			Kind: agentv1.BackgroundTaskKind_BACKGROUND_TASK_KIND_SHELL, Status: status, Title: a.GetCommand(), Detail: &detail,
			ToolCallId: &a.ToolCallId})))
	}()
	pid := uint32(cmd.Process.Pid)
	return &agentv1.BackgroundShellSpawnResult{Result: &agentv1.BackgroundShellSpawnResult_Success{Success: &agentv1.BackgroundShellSpawnSuccess{
		ShellId: id, Command: a.GetCommand(), WorkingDirectory: cmd.Dir, Pid: &pid}}}
}
