package compile

import (
	"keygate/app/run"
	"keygate/domain/conversation"
	"keygate/domain/turn"
	agentv1 "keygate/gen/cursor/agent/v1"
)

// goalContinuationAction asks the agent to keep working toward the
// conversation's goal (the checkpoint's goal_state) after it stopped: a
// turn whose message restates the goal. During a run it is moot: the
// agent is working already.
var goalContinuationAction = &action{
	name: "goal continuation",
	is:   func(a *agentv1.ConversationAction) bool { return a.GetGoalContinuationAction() != nil },
	open: func(in Input, _ Mode) opening {
		text := "<goal_continuation>\nKeep working on the task until it is done"
		if g := in.Goal.GetObjective(); g != "" {
			text += ". The goal: " + g
		}
		text += "\nIf it is done, say so briefly.\n</goal_continuation>"
		event := conversation.UserEventID("goal:"+in.RequestID, text)
		return opening{kind: run.ActionStart, eventID: event,
			input: &turn.Input{EventID: event, Trigger: turn.TriggerGoalContinuation, Runtime: textParts(text)}}
	},
	during: DuringIgnore,
	why:    "the agent is already working toward the goal",
}
