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
	name:   "user message",
	is:     func(a *agentv1.ConversationAction) bool { return a.GetUserMessageAction().GetUserMessage() != nil },
	mode:   userMode,
	during: DuringControl,
	open: func(in Input, mode Mode) opening {
		return userOpening(in, mode, in.Action.GetUserMessageAction().GetUserMessage(), turn.TriggerUserMessage)
	},
}

// userOpening opens a turn with the user message um: its text in the
// mode's runtime template with the context the user attached, the rules
// the turn brings in (glob rules its files match, rules the user
// mentions) and what the user's hooks added.
func userOpening(in Input, mode Mode, um *agentv1.UserMessage, trigger turn.Trigger) opening {
	sel := selection(um.GetSelectedContext())
	if in.Images != nil {
		sel.Images = in.Images
	}
	if rc, err := requestContext(in.Action, in.Blobs); err == nil {
		sel.Rules = append(sel.Rules, turnRules(rc, sel, um.GetText())...)
	}
	for _, h := range um.GetHookAdditionalContexts() {
		sel.Hooks = append(sel.Hooks, turn.HookContext{Event: h.GetHookEventName(), Content: h.GetContent()})
	}
	parts := turn.RuntimeParts(Runtime(mode, um.GetText()), sel)
	stable := um.GetMessageId()
	if stable == "" {
		stable = in.RequestID
	}
	event := conversation.UserEventID(stable, renderedOf(parts))
	o := opening{kind: run.ActionStart, eventID: event, user: um,
		input: &turn.Input{EventID: event, Trigger: trigger, Runtime: parts}}
	for _, r := range sel.Rules {
		o.rules = append(o.rules, r.Path)
	}
	return o
}
