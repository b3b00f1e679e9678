package compile

import (
	"fmt"

	"keygate/app/run"
	"keygate/domain/conversation"
	"keygate/domain/llm"
	"keygate/domain/projection"
	"keygate/domain/turn"
	agentv1 "keygate/gen/cursor/agent/v1"
)

// action is one kind of conversation action. Each is declared in its own
// file and listed once in actions; Compile does what every action shares
// (mode, model, prompt, tools) and applies the opening the action returns.
// An action also says what it does when it arrives while a run works
// (during).
type action struct {
	name string
	// is reports whether a is this action.
	is func(a *agentv1.ConversationAction) bool
	// mode is the mode the action asks for; nil or unspecified leaves the
	// conversation's mode.
	mode func(a *agentv1.ConversationAction) agentv1.AgentMode
	// open says what the turn runs, in the turn's mode.
	open func(in Input, mode Mode) opening
	// during is what the action does to a run that works when it arrives;
	// insert builds the message of a DuringInsert action and why says why
	// a DuringIgnore action changes nothing.
	during During
	insert func(a *agentv1.ConversationAction, requestID string) (event string, parts []llm.Part)
	why    string
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
	// shell is the user's shell command the turn records.
	shell *agentv1.ShellConversationTurn
	// rules are the paths of the rules the turn's message carries.
	rules []string
}

// During is what an action does when it arrives while a run works.
type During uint8

// What actions do during a run.
const (
	// DuringControl: the run layer acts on the running run itself (a
	// cancel, a follow-up, moving a tool to the background).
	DuringControl During = iota + 1
	// DuringInsert: the action's message joins the running run at its next
	// boundary, without interrupting it.
	DuringInsert
	// DuringQueue: the action opens the next run of the turn, once the
	// running one has ended.
	DuringQueue
	// DuringIgnore: the action is moot while a run works (MidRun.Reason).
	DuringIgnore
)

// actions are tried in order; the first that matches opens the turn. A
// compaction comes first, since a user message "/summarize" asks for one.
var actions = []*action{
	summarizeAction,
	resumeAction,
	executePlanAction,
	backgroundCompletionAction,
	userMessageAction,
	shellCommandAction,
	startPlanAction,
	asyncAnswerAction,
	backgroundShellAction,
	backgroundSubagentAction,
	notificationAction,
	goalContinuationAction,
	injectContextAction,
	cancelAction,
	cancelSubagentAction,
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

// nothing is the opening of an action that has nothing to act on when it
// opens a turn (a cancel or a move to the background with no run): the
// turn records nothing and ends without asking the model.
func nothing(Input, Mode) opening { return opening{kind: run.ActionRecord} }

// MidRun is what the run layer does with an action that arrives while a
// run works.
type MidRun struct {
	What During
	// Message is a DuringInsert action's message.
	Message conversation.Message
	// Reason says why a DuringIgnore action changes nothing.
	Reason string
}

// WhileRunning says what a conversation action that arrives while a run
// works does to it; requestID is the turn's request id (it makes event ids).
func WhileRunning(a *agentv1.ConversationAction, requestID string) (MidRun, error) {
	act := actionOf(a)
	if act == nil {
		return MidRun{}, fmt.Errorf("conversation action during a run: %w", ErrUnsupportedAction)
	}
	m := MidRun{What: act.during, Reason: act.why}
	if act.during != DuringInsert {
		return m, nil
	}
	msg, err := Insertion(a, requestID)
	if err != nil {
		return MidRun{}, err
	}
	m.Message = msg
	return m, nil
}

// Insertion is the message an action adds to a running run: a finished
// background task, late answers, notifications, injected system context.
func Insertion(a *agentv1.ConversationAction, requestID string) (conversation.Message, error) {
	act := actionOf(a)
	if act == nil || act.insert == nil {
		return conversation.Message{}, fmt.Errorf("message of a conversation action: %w", ErrUnsupportedAction)
	}
	event, parts := act.insert(a, requestID)
	msg, err := conversation.NewMessage(conversation.MessageSpec{ID: conversation.RuntimeID(event), Role: llm.RoleUser,
		Origin: conversation.OriginRuntime, RuntimeEventID: event, Parts: parts})
	if err != nil {
		return conversation.Message{}, fmt.Errorf("message of %s: %w", act.name, err)
	}
	return msg, nil
}

// textParts is one text part.
func textParts(text string) []llm.Part { return []llm.Part{{Kind: llm.PartText, Text: text}} }

// inserted opens a turn with the message insert builds (the one the
// action adds to a running run) and asks the model to act on it.
func inserted(insert func(*agentv1.ConversationAction, string) (string, []llm.Part), trigger turn.Trigger) func(Input, Mode) opening {
	return func(in Input, _ Mode) opening {
		event, parts := insert(in.Action, in.RequestID)
		return opening{kind: run.ActionStart, eventID: event,
			input: &turn.Input{EventID: event, Trigger: trigger, Runtime: parts}}
	}
}
