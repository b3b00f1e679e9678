package output

import agentv1 "keygate/gen/cursor/agent/v1"

// ShellOutput is a shell_output_delta: one event of a running shell exec
// (start, stdout, stderr, exit), mirrored for the client's terminal view
// beside the tool card's tool_call_delta.
func ShellOutput(u *agentv1.ShellOutputDeltaUpdate) *msg {
	return update(&agentv1.InteractionUpdate{Message: &agentv1.InteractionUpdate_ShellOutputDelta{ShellOutputDelta: u}})
}
