package compile

import (
	"strings"

	"keygate/app/run"
	agentv1 "keygate/gen/cursor/agent/v1"
)

// summarizeCommand is the user text that asks for a compaction.
const summarizeCommand = "/summarize"

// summarizeAction compacts the conversation: a SummarizeAction, or a user
// message that is only "/summarize". The summary call gets the compaction
// prompt and no tools, and the turn adds no message of its own.
var summarizeAction = &action{
	name: "summarize",
	is: func(a *agentv1.ConversationAction) bool {
		um := a.GetUserMessageAction().GetUserMessage()
		return a.GetSummarizeAction() != nil || (um != nil && strings.TrimSpace(um.GetText()) == summarizeCommand)
	},
	mode:   userMode,
	during: DuringQueue,
	open: func(Input, Mode) opening {
		prompt := CompactionPrompt()
		return opening{kind: run.ActionCompact, prompt: &prompt}
	},
}
