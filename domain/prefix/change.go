package prefix

import "keygate/domain/conversation"

// Change is something a user changed between two consecutive requests of
// a conversation that shows in the requests themselves. A change may
// break the prefix (a mode switch changes the tools that lead the prompt,
// a switch to another upstream model starts another cache) or only append
// to it (a request-context message of a channel that changed).
type Change uint8

// Changes a request can show.
const (
	// ChangeModeSwitch: the request was made in another mode (its prompt
	// name differs), or appends a mode message where a name is unknown.
	ChangeModeSwitch Change = iota + 1
	// ChangeModelSwitch: the request asks another upstream model.
	ChangeModelSwitch
	// ChangeMCP: the request appends a message of the MCP channel (an MCP
	// server or tool was added, changed or removed).
	ChangeMCP
	// ChangeContext: the request appends a message of the environment,
	// editor, files or memories channel (rules, skills, layouts, the open
	// files and their contents, the user's memories…).
	ChangeContext
)

// String returns the change's name.
func (c Change) String() string {
	switch c {
	case ChangeModeSwitch:
		return "mode switch"
	case ChangeModelSwitch:
		return "model switch"
	case ChangeMCP:
		return "MCP change"
	case ChangeContext:
		return "context change"
	}
	return "unknown"
}

// ChangesBetween names the changes next shows against previous, each once,
// in the order of the constants: it compares the model and the prompt
// name, and reads the channel of every request-context message next holds
// and previous does not (by message id, so a change is named whether or
// not it broke the prefix).
func ChangesBetween(previous, next Shape) []Change {
	found := map[Change]bool{}
	if previous.Model != next.Model {
		found[ChangeModelSwitch] = true
	}
	named := previous.Prompt != "" && next.Prompt != ""
	if named && previous.Prompt != next.Prompt {
		found[ChangeModeSwitch] = true
	}
	held := make(map[string]bool, len(previous.Messages))
	for _, m := range previous.Messages {
		held[m.ID] = true
	}
	for _, m := range next.Messages {
		ch, _, ok := conversation.ContextOf(m.ID)
		if !ok || held[m.ID] {
			continue
		}
		switch ch {
		case conversation.ContextMCP:
			found[ChangeMCP] = true
		case conversation.ContextMode:
			if !named {
				found[ChangeModeSwitch] = true
			}
		default:
			found[ChangeContext] = true
		}
	}
	var out []Change
	for c := ChangeModeSwitch; c <= ChangeContext; c++ {
		if found[c] {
			out = append(out, c)
		}
	}
	return out
}
