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
