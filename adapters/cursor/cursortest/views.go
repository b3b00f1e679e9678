package cursortest

import (
	"strconv"

	agentv1 "keygate/gen/cursor/agent/v1"
)

// This file holds what a client renders from a stream besides its text:
// the live terminal of a running shell and the content of a file while the
// model writes it.

// Terminal is the client's terminal view of msgs: every shell_output_delta
// in order, as "start", "stdout:<data>", "stderr:<data>" and
// "exit:<code>".
func Terminal(msgs []*agentv1.AgentServerMessage) []string {
	var out []string
	for _, m := range msgs {
		so := m.GetInteractionUpdate().GetShellOutputDelta()
		switch {
		case so == nil:
		case so.GetStart() != nil:
			out = append(out, "start")
		case so.GetStdout() != nil:
			out = append(out, "stdout:"+so.GetStdout().GetData())
		case so.GetStderr() != nil:
			out = append(out, "stderr:"+so.GetStderr().GetData())
		case so.GetExit() != nil:
			out = append(out, "exit:"+strconv.Itoa(int(so.GetExit().GetCode())))
		}
	}
	return out
}

// EditStream is what the client shows of the file a Write or StrReplace
// call writes while the model still streams it: the call's
// edit_tool_call_delta contents, concatenated.
func EditStream(msgs []*agentv1.AgentServerMessage, callID string) string {
	var s string
	for _, m := range msgs {
		u := m.GetInteractionUpdate().GetToolCallDelta()
		if u == nil || u.GetCallId() != callID {
			continue
		}
		if d := u.GetToolCallDelta().GetEditToolCallDelta(); d != nil {
			s += d.GetStreamContentDelta()
		}
	}
	return s
}
