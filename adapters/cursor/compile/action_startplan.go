package compile

import (
	"keygate/domain/turn"
	agentv1 "keygate/gen/cursor/agent/v1"
)

// startPlanAction is a user message that asks for a plan (Cursor's "plan"
// button): a user turn in plan mode, whatever mode the conversation was
// in. During a run it opens the next run of the turn.
var startPlanAction = &action{
	name:   "start plan",
	is:     func(a *agentv1.ConversationAction) bool { return a.GetStartPlanAction() != nil },
	mode:   func(*agentv1.ConversationAction) agentv1.AgentMode { return agentv1.AgentMode_AGENT_MODE_PLAN },
	during: DuringQueue,
	open: func(in Input, mode Mode) opening {
		um := in.Action.GetStartPlanAction().GetUserMessage()
		if um == nil {
			um = &agentv1.UserMessage{}
		}
		return userOpening(in, mode, um, turn.TriggerStartPlan)
	},
}
