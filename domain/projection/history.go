package projection

import (
	"slices"

	"keygate/domain/conversation"
	"keygate/domain/llm"
)

// History projects stored messages, oldest first, to provider messages:
//
//   - the parts of one tool round (stored in completion order, each call
//     with its result) merge back into one assistant message with the calls
//     in the model's original index order, followed by the results in
//     completion order; text, thinking and replay state appear once;
//   - every call must be answered exactly once by the tool messages that
//     follow its assistant message, else *HistoryError (ErrInvalidHistory);
//   - tool-result text longer than [ToolResultLimit] is cut in the provider
//     view by [CapToolResult]; the stored messages are not touched.
func History(msgs []conversation.Message) ([]llm.Message, error) {
	out := make([]llm.Message, 0, len(msgs))
	for i := 0; i < len(msgs); {
		m := msgs[i]
		switch {
		case m.ToolRoundID() != "" && m.Role() == llm.RoleAssistant:
			j := i
			for j < len(msgs) && msgs[j].ToolRoundID() == m.ToolRoundID() {
				j++
			}
			out = append(out, mergeRound(msgs[i:j])...)
			i = j
		case m.Role() == llm.RoleAssistant:
			out = append(out, m.LLM())
			i++
			for i < len(msgs) && msgs[i].Role() == llm.RoleTool && msgs[i].ToolRoundID() == "" {
				out = append(out, msgs[i].LLM())
				i++
			}
		default:
			out = append(out, m.LLM())
			i++
		}
	}
	if err := checkCalls(out); err != nil {
		return nil, err
	}
	for i := range out {
		if r := out[i].ToolResult; r != nil {
			r.Content = CapToolResult(r.Content, ToolResultLimit)
		}
	}
	return out, nil
}

// mergeRound turns the stored parts and results of one round into one
// assistant message followed by the results.
func mergeRound(group []conversation.Message) []llm.Message {
	merged := llm.Message{ID: group[0].ToolRoundID(), Role: llm.RoleAssistant, Assistant: &llm.Assistant{}}
	var results []llm.Message
	for _, m := range group {
		a, ok := m.Assistant()
		if !ok {
			results = append(results, m.LLM())
			continue
		}
		if merged.Assistant.Text == "" {
			merged.Assistant.Text = a.Text
		}
		if merged.Assistant.Thinking == "" {
			merged.Assistant.Thinking = a.Thinking
		}
		if merged.Assistant.Replay == nil {
			merged.Assistant.Replay = a.Replay
		}
		merged.Assistant.Calls = append(merged.Assistant.Calls, a.Calls...)
	}
	slices.SortStableFunc(merged.Assistant.Calls, func(x, y llm.ToolCall) int { return x.Index - y.Index })
	return append([]llm.Message{merged}, results...)
}

// checkCalls verifies that the tool messages after each assistant message
// answer its calls exactly once and that no tool message stands alone.
func checkCalls(msgs []llm.Message) error {
	var open map[string]bool
	var owner string
	closeOpen := func(at string) error {
		if len(open) == 0 {
			return nil
		}
		return &HistoryError{MessageID: owner, CallID: sortedKeys(open)[0], Reason: "assistant tool call has no result before " + at}
	}
	for _, m := range msgs {
		if m.Role != llm.RoleTool {
			if err := closeOpen("message " + m.ID); err != nil {
				return err
			}
			open = nil
		}
		switch {
		case m.Role == llm.RoleAssistant && len(m.Assistant.Calls) > 0:
			owner, open = m.ID, make(map[string]bool, len(m.Assistant.Calls))
			for _, c := range m.Assistant.Calls {
				open[c.CallID] = true
			}
		case m.Role == llm.RoleTool && !open[m.ToolResult.CallID]:
			return &HistoryError{MessageID: m.ID, CallID: m.ToolResult.CallID, Reason: "tool result without an open call"}
		case m.Role == llm.RoleTool:
			delete(open, m.ToolResult.CallID)
		}
	}
	return closeOpen("the end of history")
}

func sortedKeys(set map[string]bool) []string {
	keys := make([]string, 0, len(set))
	for k := range set {
		keys = append(keys, k)
	}
	slices.Sort(keys)
	return keys
}
