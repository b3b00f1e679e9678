package compile

import agentv1 "keygate/gen/cursor/agent/v1"

// backgroundSubagentAction is the user moving a running subagent to the
// background. During a run the run layer asks the client to background it
// (ForceBackgroundSubagentArgs) and its Task completes; when it opens a
// turn nothing runs, so the turn records nothing and ends.
var backgroundSubagentAction = &action{
	name:   "background subagent",
	is:     func(a *agentv1.ConversationAction) bool { return a.GetBackgroundSubagentAction() != nil },
	open:   nothing,
	during: DuringControl,
}
