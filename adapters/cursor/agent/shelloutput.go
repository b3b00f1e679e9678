package agent

import (
	"keygate/adapters/cursor/output"
	"keygate/adapters/cursor/tools"
	agentv1 "keygate/gen/cursor/agent/v1"
)

// mirrorShell sends the client's shell stream events of a running Shell
// call back as shell_output_delta: the client's terminal view follows that
// channel, while the tool card follows tool_call_delta. Start, stdout,
// stderr and exit are mirrored as they arrive, before the call sees them,
// so the mirror of the exit precedes the call's completion.
func (d *dispatcher) mirrorShell(call *tools.Call, m *agentv1.ExecClientMessage) {
	if call.Card().GetShellToolCall() == nil {
		return
	}
	u := &agentv1.ShellOutputDeltaUpdate{}
	switch e := m.GetShellStream().GetEvent().(type) {
	case *agentv1.ShellStream_Start:
		u.Event = &agentv1.ShellOutputDeltaUpdate_Start{Start: e.Start}
	case *agentv1.ShellStream_Stdout:
		u.Event = &agentv1.ShellOutputDeltaUpdate_Stdout{Stdout: e.Stdout}
	case *agentv1.ShellStream_Stderr:
		u.Event = &agentv1.ShellOutputDeltaUpdate_Stderr{Stderr: e.Stderr}
	case *agentv1.ShellStream_Exit:
		u.Event = &agentv1.ShellOutputDeltaUpdate_Exit{Exit: e.Exit}
	default:
		return
	}
	d.wire.emit(output.ShellOutput(u))
}
