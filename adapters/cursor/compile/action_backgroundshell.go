package compile

import agentv1 "keygate/gen/cursor/agent/v1"

// backgroundShellAction is the user moving a running shell command to the
// background. During a run the run layer asks the client to background
// the command (ForceBackgroundShellArgs) and the command's tool call
// completes; when it opens a turn nothing runs, so the turn records
// nothing and ends.
var backgroundShellAction = &action{
	name:   "background shell",
	is:     func(a *agentv1.ConversationAction) bool { return a.GetBackgroundShellAction() != nil },
	open:   nothing,
	during: DuringControl,
}
