package compile

import (
	"keygate/app/run"
	"keygate/domain/conversation"
	"keygate/domain/turn"
	agentv1 "keygate/gen/cursor/agent/v1"
)

// userMessageAction is the user's message with what they attached: the
// text in the mode's runtime template, the selected context and images.
// The message id makes its event, so a re-sent message is the same event
// and an edited one a new one.
var userMessageAction = &action{
	name: "user message",
	is:   func(a *agentv1.ConversationAction) bool { return a.GetUserMessageAction().GetUserMessage() != nil },
	mode: userMode,
	open: func(in Input, mode Mode) opening {
		um := in.Action.GetUserMessageAction().GetUserMessage()
		sel := selection(um.GetSelectedContext())
		if in.Images != nil {
			sel.Images = in.Images
		}
		parts := turn.RuntimeParts(Runtime(mode, um.GetText()), sel)
		stable := um.GetMessageId()
		if stable == "" {
			stable = in.RequestID
		}
		event := conversation.UserEventID(stable, renderedOf(parts))
		return opening{kind: run.ActionStart, eventID: event, user: um,
			input: &turn.Input{EventID: event, Trigger: turn.TriggerUserMessage, Runtime: parts}}
	},
}
