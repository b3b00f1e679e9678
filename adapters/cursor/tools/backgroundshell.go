package tools

import (
	"fmt"

	agentv1 "keygate/gen/cursor/agent/v1"
)

// backgroundShellTool starts a long-running command (a dev server, a
// watcher) in the background on the client: the call completes once the
// command started, its output goes to a terminal file, WriteShellStdin
// types into it and Await waits for it.
var backgroundShellTool = &tool{
	name:  "BackgroundShell",
	modes: append(append([]string{}, editingModes...), modePlan),
	runs:  onClient,
	open:  func() handler { return new(backgroundShell) },
}

// backgroundShell handles one BackgroundShell call; it keeps nothing between steps (the card holds
// what a later step reads).
type backgroundShell struct{}

func (*backgroundShell) start(c *call) (Action, error) {
	cmd, err := c.required("command")
	if err != nil {
		return Action{}, err
	}
	args := &agentv1.BackgroundShellSpawnArgs{Command: cmd, WorkingDirectory: c.str("working_directory"), ToolCallId: c.id,
		EnableWriteShellStdinTool: true, Description: optStr(c.str("description")), ConversationId: optStr(c.env.ConversationID)}
	c.card.Tool = &agentv1.ToolCall_ShellToolCall{ShellToolCall: &agentv1.ShellToolCall{Args: &agentv1.ShellArgs{
		Command: cmd, WorkingDirectory: args.WorkingDirectory, ToolCallId: c.id, Description: args.Description,
		ConversationId: args.ConversationId, TimeoutBehavior: agentv1.TimeoutBehavior_TIMEOUT_BEHAVIOR_BACKGROUND},
		Description: args.Description}}
	return c.exec(func(m *agentv1.ExecServerMessage) {
		m.Message = &agentv1.ExecServerMessage_BackgroundShellSpawnArgs{BackgroundShellSpawnArgs: args}
	}), nil
}

func (*backgroundShell) onExec(c *call, m *agentv1.ExecClientMessage) Action {
	r := m.GetBackgroundShellSpawnResult()
	if r == nil {
		return c.unexpected(m)
	}
	tc := c.card.GetShellToolCall()
	bg := true
	res := &agentv1.ShellResult{IsBackground: &bg, TerminalsFolder: optStr(c.env.TerminalsFolder)}
	tc.Result = res
	switch x := r.GetResult().(type) {
	case *agentv1.BackgroundShellSpawnResult_Success:
		s := x.Success
		id := s.GetShellId()
		res.Pid = s.Pid
		res.Result = &agentv1.ShellResult_Success{Success: &agentv1.ShellSuccess{Command: s.GetCommand(),
			WorkingDirectory: s.GetWorkingDirectory(), ShellId: &id, Pid: s.Pid}}
		where := "the terminals folder"
		if c.env.TerminalsFolder != "" {
			where = fmt.Sprintf("%s/%d.txt", c.env.TerminalsFolder, id)
		}
		return finish(fmt.Sprintf("The command runs in the background as shell %d. Its output goes to %s; read that file to follow it. "+
			"Type into it with WriteShellStdin (shell_id %d); wait for it with Await (task_id %q).", id, where, id, fmt.Sprint(id)), false)
	case *agentv1.BackgroundShellSpawnResult_Error:
		res.Result = &agentv1.ShellResult_SpawnError{SpawnError: &agentv1.ShellSpawnError{Command: x.Error.GetCommand(),
			WorkingDirectory: x.Error.GetWorkingDirectory(), Error: x.Error.GetError()}}
		return fail("the command did not start: " + x.Error.GetError())
	case *agentv1.BackgroundShellSpawnResult_Rejected:
		res.Result = &agentv1.ShellResult_Rejected{Rejected: x.Rejected}
		return fail("the user rejected the command. " + x.Rejected.GetReason())
	case *agentv1.BackgroundShellSpawnResult_PermissionDenied:
		res.Result = &agentv1.ShellResult_PermissionDenied{PermissionDenied: x.PermissionDenied}
		return fail("permission denied for the command: " + x.PermissionDenied.GetError())
	}
	return fail(describe("background shell", r))
}
