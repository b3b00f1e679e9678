package conversation

// Origin says who produced a message. Role says how a provider sees it;
// origin says why it exists, which decides what compaction and projection
// may do with it.
type Origin uint8

// Message origins.
const (
	// OriginPrompt is server-compiled context, such as a request-context
	// message or an imported system prompt.
	OriginPrompt Origin = iota + 1
	// OriginUser is a message the user wrote, as imported from the client's
	// history.
	OriginUser
	// OriginRuntime is a user-visible turn produced by the engine: the
	// rendered user message, summaries and injected runtime events.
	OriginRuntime
	// OriginAssistant is model output.
	OriginAssistant
	// OriginTool is a tool result.
	OriginTool
)

// String returns the lower-case origin name, which is also its encoded form.
func (o Origin) String() string {
	switch o {
	case OriginPrompt:
		return "prompt"
	case OriginUser:
		return "user"
	case OriginRuntime:
		return "runtime"
	case OriginAssistant:
		return "assistant"
	case OriginTool:
		return "tool"
	default:
		return "unknown"
	}
}

func parseOrigin(s string) (Origin, bool) {
	for o := OriginPrompt; o <= OriginTool; o++ {
		if o.String() == s {
			return o, true
		}
	}
	return 0, false
}
