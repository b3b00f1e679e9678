package compile

import (
	"keygate/app/run"
	"keygate/domain/turn"
	agentv1 "keygate/gen/cursor/agent/v1"
)

// resumeAction resumes the tool round the client's checkpoint left open
// (Input.PendingRoundID), for example after a server restart.
var resumeAction = &action{
	name:   "resume",
	is:     func(a *agentv1.ConversationAction) bool { return a.GetResumeAction() != nil },
	during: DuringIgnore,
	why:    "the run it would resume is the one running",
	open: func(in Input, _ Mode) opening {
		return opening{kind: run.ActionResume, pendingRoundID: in.PendingRoundID,
			input: &turn.Input{EventID: "cursor:resume:" + in.RequestID, Trigger: turn.TriggerResume}}
	},
}
