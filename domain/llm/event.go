package llm

// EventKind says which model event an [Event] is.
type EventKind uint8

// Model events, in the grammar of a model cycle:
//
//	Start (TextStart TextDelta* TextEnd | ThinkingStart ThinkingDelta* ThinkingEnd |
//	       ToolCallStart ToolCallArgumentsDelta* ToolCallEnd | ReplayState | Usage)* Done
//
// Blocks of different kinds may interleave (several tool calls are open at
// once in parallel calls); Done may only follow when every block is closed.
const (
	EventStart EventKind = iota + 1
	EventTextStart
	EventTextDelta
	EventTextEnd
	EventThinkingStart
	EventThinkingDelta
	EventThinkingEnd
	EventToolCallStart
	EventToolCallArgumentsDelta
	EventToolCallEnd
	EventReplayState
	EventUsage
	EventDone
)

// Event is one model event. It is a flat value rather than an interface so a
// stream can yield one per token without boxing allocations. Which fields are
// meaningful depends on Kind:
//
//	Start                  ModelCallID (the provider's response id, may be empty)
//	TextDelta, ThinkingDelta  Text
//	ToolCallStart          Index, CallID, Name
//	ToolCallArgumentsDelta Index, Text
//	ThinkingEnd            Text: the block's signature where the provider
//	                       signs thinking (Anthropic), else empty
//	ToolCallEnd            Index
//	ReplayState            Replay
//	Usage                  Usage
//	Done                   Finish, and Filter when Finish is FinishContentFilter
type Event struct {
	Kind        EventKind
	Index       int
	Text        string
	CallID      string
	Name        string
	ModelCallID string
	Replay      *ReplayState
	Usage       *Usage
	Finish      FinishReason
	// Filter names what a provider's content filter blocked (Done with
	// FinishContentFilter); it may be empty when the provider said nothing.
	Filter []FilterHit
}

// FinishReason is why the model stopped.
type FinishReason uint8

// Finish reasons after provider-specific collapsing.
const (
	FinishStop FinishReason = iota + 1
	FinishLength
	FinishToolUse
	// FinishContentFilter: the provider's content filter stopped the answer.
	// It is no answer: what streamed before it is cut off, and the filter's
	// categories ride on the Done event.
	FinishContentFilter
)

// String returns the lower-case finish reason.
func (f FinishReason) String() string {
	switch f {
	case FinishStop:
		return "stop"
	case FinishLength:
		return "length"
	case FinishToolUse:
		return "tool_use"
	case FinishContentFilter:
		return "content_filter"
	default:
		return "unknown"
	}
}
