package compile

import (
	"keygate/app/run"
	"keygate/domain/projection"
	"keygate/domain/turn"
	agentv1 "keygate/gen/cursor/agent/v1"
)

// action is one kind of conversation action that opens a turn. Each is
// declared in its own file and listed once in actions; Compile does what
// every action shares (mode, model, prompt, tools) and applies the opening
// the action returns.
type action struct {
	name string
	// is reports whether a is this action.
	is func(a *agentv1.ConversationAction) bool
	// mode is the mode the action asks for; nil or unspecified leaves the
	// conversation's mode.
	mode func(a *agentv1.ConversationAction) agentv1.AgentMode
	// open says what the turn runs, in the turn's mode.
	open func(in Input, mode Mode) opening
}

// opening is what an action makes of its turn.
type opening struct {
	kind           run.ActionKind
	pendingRoundID string
	// input, when set, asks domain/turn for the run's initial messages.
	input *turn.Input
	// user is the user message the turn shows and eventID its event (none
	// for a resume or a compaction).
	user    *agentv1.UserMessage
	eventID string
	// prompt, when set, replaces the mode's prompt and tools.
	prompt *projection.Prompt
}

// actions are tried in order; the first that matches opens the turn. A
// compaction comes first, since a user message "/summarize" asks for one.
var actions = []*action{
	summarizeAction,
	resumeAction,
	executePlanAction,
	backgroundCompletionAction,
	userMessageAction,
}

func actionOf(a *agentv1.ConversationAction) *action {
	for _, act := range actions {
		if act.is(a) {
			return act
		}
	}
	return nil
}

// userMode is the mode of the action's user message, if any.
func userMode(a *agentv1.ConversationAction) agentv1.AgentMode {
	return a.GetUserMessageAction().GetUserMessage().GetMode()
}
