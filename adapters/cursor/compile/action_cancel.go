package compile

import agentv1 "keygate/gen/cursor/agent/v1"

// cancelAction stops the running run (the run layer aborts its execs and
// cancels it). When it opens a turn nothing runs, so the turn records
// nothing and ends.
var cancelAction = &action{
	name:   "cancel",
	is:     func(a *agentv1.ConversationAction) bool { return a.GetCancelAction() != nil },
	open:   nothing,
	during: DuringControl,
}
