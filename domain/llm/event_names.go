package llm

var eventKindNames = [...]string{
	EventStart:                  "start",
	EventTextStart:              "text_start",
	EventTextDelta:              "text_delta",
	EventTextEnd:                "text_end",
	EventThinkingStart:          "thinking_start",
	EventThinkingDelta:          "thinking_delta",
	EventThinkingEnd:            "thinking_end",
	EventToolCallStart:          "tool_call_start",
	EventToolCallArgumentsDelta: "tool_call_arguments_delta",
	EventToolCallEnd:            "tool_call_end",
	EventReplayState:            "replay_state",
	EventUsage:                  "usage",
	EventDone:                   "done",
}

// String returns the snake-case event name used in grammar errors and logs.
func (k EventKind) String() string {
	if int(k) < len(eventKindNames) && eventKindNames[k] != "" {
		return eventKindNames[k]
	}
	return "unknown"
}
