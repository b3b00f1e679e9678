package compile

import agentv1 "keygate/gen/cursor/agent/v1"

// cancelSubagentAction stops one subagent: the run layer aborts its Task
// and the run goes on. When it opens a turn nothing runs, so the turn
// records nothing and ends.
var cancelSubagentAction = &action{
	name:   "cancel subagent",
	is:     func(a *agentv1.ConversationAction) bool { return a.GetCancelSubagentAction() != nil },
	open:   nothing,
	during: DuringControl,
}
