package compile

import (
	"keygate/app/run"
	"keygate/domain/conversation"
	"keygate/domain/turn"
	agentv1 "keygate/gen/cursor/agent/v1"
)

// executePlanText is the user turn an ExecutePlanAction stands for.
const executePlanText = "Execute the approved plan."

// executePlanAction carries out the plan the user approved: a user turn,
// in the plan's execution mode (agent when unspecified), that holds the
// plan.
var executePlanAction = &action{
	name:   "execute plan",
	is:     func(a *agentv1.ConversationAction) bool { return a.GetExecutePlanAction() != nil },
	mode:   planMode,
	during: DuringQueue,
	open: func(in Input, mode Mode) opening {
		ep := in.Action.GetExecutePlanAction()
		plan := ep.GetPlan().GetPlan()
		if plan == "" {
			plan = ep.GetPlanFileContent()
		}
		stable := ep.GetKickoffMessageId()
		if stable == "" {
			stable = in.RequestID
		}
		text := "<approved_plan>\n" + plan + "\n</approved_plan>\n\n" + Runtime(mode, executePlanText)
		parts := turn.RuntimeParts(text, turn.Selection{})
		event := conversation.UserEventID(stable, renderedOf(parts))
		return opening{kind: run.ActionStart, eventID: event,
			input: &turn.Input{EventID: event, Trigger: turn.TriggerExecutePlan, Runtime: parts},
			user:  &agentv1.UserMessage{Text: executePlanText, MessageId: stable, Mode: planMode(in.Action)}}
	},
}

func planMode(a *agentv1.ConversationAction) agentv1.AgentMode {
	if m := a.GetExecutePlanAction().GetExecutionMode(); m != agentv1.AgentMode_AGENT_MODE_UNSPECIFIED {
		return m
	}
	return agentv1.AgentMode_AGENT_MODE_AGENT
}
