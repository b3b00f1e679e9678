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
	// TriggerShellCommand records a command the user ran in their shell.
	TriggerShellCommand
	// TriggerStartPlan is a user message that asks for a plan.
	TriggerStartPlan
	// TriggerAsyncAnswer brings the user's late answers to questions.
	TriggerAsyncAnswer
	// TriggerNotification brings notifications the user subscribed to.
	TriggerNotification
	// TriggerGoalContinuation asks the agent to keep working toward the
	// conversation's goal.
	TriggerGoalContinuation
	// TriggerSystemContext is context another component of the client
	// injected.
	TriggerSystemContext
)

// StartsTurn reports whether the trigger starts a turn, the only inputs
// that may add a request-context message.
func (t Trigger) StartsTurn() bool {
	switch t {
	case TriggerUserMessage, TriggerResume, TriggerExecutePlan, TriggerStartPlan, TriggerNotification:
		return true
	}
	return false
}
