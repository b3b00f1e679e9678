package cursortest

import (
	agentv1 "keygate/gen/cursor/agent/v1"
)

// Inject is a queued follow-up (Cursor 3.16+): inject_context_action with
// a user message for the run of expectedRunID.
func Inject(injectionID, expectedRunID, text string) *agentv1.AgentClientMessage {
	return Action(&agentv1.ConversationAction{Action: &agentv1.ConversationAction_InjectContextAction{
		InjectContextAction: &agentv1.InjectContextAction{InjectionId: injectionID, ExpectedRunId: expectedRunID,
			Payload: &agentv1.InjectContextAction_UserContext{UserContext: &agentv1.UserContextInjection{
				UserMessage: &agentv1.UserMessage{Text: text, MessageId: injectionID}}}}}})
}

// UserMessageAction is a user_message_action with a message id, for run
// requests that send, edit or re-send a message.
func UserMessageAction(messageID, text string) *agentv1.ConversationAction {
	return &agentv1.ConversationAction{Action: &agentv1.ConversationAction_UserMessageAction{
		UserMessageAction: &agentv1.UserMessageAction{UserMessage: &agentv1.UserMessage{Text: text, MessageId: messageID}}}}
}

// SummarizeAction asks for a compaction of the conversation.
func SummarizeAction() *agentv1.ConversationAction {
	return &agentv1.ConversationAction{Action: &agentv1.ConversationAction_SummarizeAction{SummarizeAction: &agentv1.SummarizeAction{}}}
}

// ResumeAction continues a conversation after a restart.
func ResumeAction() *agentv1.ConversationAction {
	return &agentv1.ConversationAction{Action: &agentv1.ConversationAction_ResumeAction{ResumeAction: &agentv1.ResumeAction{}}}
}

// Request is an opening run_request for conv with model, action and the
// client's stored state (nil for none).
func Request(conv, model string, action *agentv1.ConversationAction, state *agentv1.ConversationStateStructure) *agentv1.AgentClientMessage {
	return &agentv1.AgentClientMessage{Message: &agentv1.AgentClientMessage_RunRequest{RunRequest: &agentv1.AgentRunRequest{
		ConversationId: &conv, Action: action, ConversationState: state,
		RequestedModel: &agentv1.RequestedModel{ModelId: model}}}}
}

// ShellCommand is the user's "!" command: the client asks the server to
// run it (exec id execID) and records its output in the conversation.
func ShellCommand(command, execID string) *agentv1.ConversationAction {
	return &agentv1.ConversationAction{Action: &agentv1.ConversationAction_ShellCommandAction{ShellCommandAction: &agentv1.ShellCommandAction{
		ShellCommand: &agentv1.ShellCommand{Command: command}, ExecId: execID}}}
}

// StartPlan is the user asking for a plan with text.
func StartPlan(messageID, text string) *agentv1.ConversationAction {
	return &agentv1.ConversationAction{Action: &agentv1.ConversationAction_StartPlanAction{StartPlanAction: &agentv1.StartPlanAction{
		UserMessage: &agentv1.UserMessage{Text: text, MessageId: messageID}}}}
}

// AsyncAnswers are the user's late answers to an AskQuestion call.
func AsyncAnswers(toolCallID string, args *agentv1.AskQuestionArgs, answers ...*agentv1.AskQuestionSuccess_Answer) *agentv1.ConversationAction {
	return &agentv1.ConversationAction{Action: &agentv1.ConversationAction_AsyncAskQuestionCompletionAction{
		AsyncAskQuestionCompletionAction: &agentv1.AsyncAskQuestionCompletionAction{OriginalToolCallId: toolCallID, OriginalArgs: args,
			Result: &agentv1.AskQuestionResult{Result: &agentv1.AskQuestionResult_Success{Success: &agentv1.AskQuestionSuccess{Answers: answers}}}}}}
}

// BackgroundShell is the user moving the shell of a tool call to the
// background.
func BackgroundShell(toolCallID string) *agentv1.ConversationAction {
	return &agentv1.ConversationAction{Action: &agentv1.ConversationAction_BackgroundShellAction{
		BackgroundShellAction: &agentv1.BackgroundShellAction{ToolCallId: toolCallID}}}
}

// BackgroundSubagent is the user moving the subagent of a tool call to the
// background.
func BackgroundSubagent(toolCallID string) *agentv1.ConversationAction {
	return &agentv1.ConversationAction{Action: &agentv1.ConversationAction_BackgroundSubagentAction{
		BackgroundSubagentAction: &agentv1.BackgroundSubagentAction{ToolCallId: toolCallID}}}
}

// Notifications are updates the user subscribed to.
func Notifications(texts ...string) *agentv1.ConversationAction {
	a := &agentv1.SubscriptionNotificationAction{}
	for _, t := range texts {
		a.Notifications = append(a.Notifications, &agentv1.UserMessage{Text: t})
	}
	return &agentv1.ConversationAction{Action: &agentv1.ConversationAction_SubscriptionNotificationAction{SubscriptionNotificationAction: a}}
}

// GoalContinuation asks the agent to keep working toward the goal.
func GoalContinuation() *agentv1.ConversationAction {
	return &agentv1.ConversationAction{Action: &agentv1.ConversationAction_GoalContinuationAction{GoalContinuationAction: &agentv1.GoalContinuationAction{}}}
}

// BackgroundCompletion reports finished background tasks.
func BackgroundCompletion(done ...*agentv1.BackgroundTaskCompletion) *agentv1.ConversationAction {
	return &agentv1.ConversationAction{Action: &agentv1.ConversationAction_BackgroundTaskCompletionAction{
		BackgroundTaskCompletionAction: &agentv1.BackgroundTaskCompletionAction{Completions: done}}}
}

// CancelSubagent stops the subagent of a tool call.
func CancelSubagent(toolCallID string) *agentv1.ConversationAction {
	return &agentv1.ConversationAction{Action: &agentv1.ConversationAction_CancelSubagentAction{
		CancelSubagentAction: &agentv1.CancelSubagentAction{SubagentId: toolCallID}}}
}
