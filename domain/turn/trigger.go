package turn

// Trigger is the client action that started a run.
type Trigger uint8

// Triggers.
const (
	// TriggerUserMessage is a new user message.
	TriggerUserMessage Trigger = iota + 1
	// TriggerResume continues a conversation after a restart or a broken
	// stream.
	TriggerResume
	// TriggerExecutePlan runs a plan the user accepted.
	TriggerExecutePlan
	// TriggerSummarize is a manual /summarize.
	TriggerSummarize
	// TriggerBackgroundCompletion reports a background task's completion.
	TriggerBackgroundCompletion
)

// StartsTurn reports whether the trigger starts a turn, the only inputs
// that may add a request-context message.
func (t Trigger) StartsTurn() bool {
	return t == TriggerUserMessage || t == TriggerResume || t == TriggerExecutePlan
}
