package cursortest

import (
	"strconv"
	"time"

	agentv1 "keygate/gen/cursor/agent/v1"
)

// This file holds what a client renders from a stream besides its text:
// the live terminal of a running shell, the content of a file while the
// model writes it, and the thinking blocks (where Keygate's statuses show
// while it retries a provider).

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

// ThinkingBlock is one thinking block as the client shows it: the text of
// its thinking_delta updates and, once a thinking_completed closed it, how
// long it took. Before is the number of text deltas the stream carried
// before the block opened, so a spec can tell where it sits in the answer.
type ThinkingBlock struct {
	Text     string
	Closed   bool
	Duration time.Duration
	Before   int
}

// Thinking is the client's view of the thinking blocks in msgs, in order:
// consecutive thinking deltas fill one block until a thinking_completed
// closes it.
func Thinking(msgs []*agentv1.AgentServerMessage) []ThinkingBlock {
	var out []ThinkingBlock
	texts, open := 0, false
	for _, m := range msgs {
		u := m.GetInteractionUpdate()
		switch {
		case u.GetTextDelta() != nil:
			texts++
		case u.GetThinkingDelta() != nil:
			if !open {
				out = append(out, ThinkingBlock{Before: texts})
				open = true
			}
			out[len(out)-1].Text += u.GetThinkingDelta().GetText()
		case u.GetThinkingCompleted() != nil && open:
			out[len(out)-1].Closed = true
			out[len(out)-1].Duration = time.Duration(u.GetThinkingCompleted().GetThinkingDurationMs()) * time.Millisecond
			open = false
		}
	}
	return out
}
