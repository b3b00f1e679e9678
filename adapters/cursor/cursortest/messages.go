package cursortest

import (
	agentv1 "keygate/gen/cursor/agent/v1"
)

// RunRequest is an opening append: a user message for model in
// conversation conv. An empty model gives a run request without a model.
func RunRequest(conv, model, text string) *agentv1.AgentClientMessage {
	req := &agentv1.AgentRunRequest{
		ConversationId: &conv,
		Action: &agentv1.ConversationAction{Action: &agentv1.ConversationAction_UserMessageAction{
			UserMessageAction: &agentv1.UserMessageAction{UserMessage: &agentv1.UserMessage{Text: text, MessageId: conv + ":" + text}},
		}},
	}
	if model != "" {
		req.RequestedModel = &agentv1.RequestedModel{ModelId: model}
	}
	return &agentv1.AgentClientMessage{Message: &agentv1.AgentClientMessage_RunRequest{RunRequest: req}}
}

// Heartbeat is a client_heartbeat append.
func Heartbeat() *agentv1.AgentClientMessage {
	return &agentv1.AgentClientMessage{Message: &agentv1.AgentClientMessage_ClientHeartbeat{ClientHeartbeat: &agentv1.ClientHeartbeat{}}}
}

// Cancel is a stand-alone cancel action.
func Cancel(reason string) *agentv1.AgentClientMessage {
	return Action(&agentv1.ConversationAction{Action: &agentv1.ConversationAction_CancelAction{
		CancelAction: &agentv1.CancelAction{Reason: reason},
	}})
}

// Action wraps a stand-alone conversation action.
func Action(a *agentv1.ConversationAction) *agentv1.AgentClientMessage {
	return &agentv1.AgentClientMessage{Message: &agentv1.AgentClientMessage_ConversationAction{ConversationAction: a}}
}

// FollowUp is a stand-alone user_message_action.
func FollowUp(text string) *agentv1.AgentClientMessage {
	return Action(&agentv1.ConversationAction{Action: &agentv1.ConversationAction_UserMessageAction{
		UserMessageAction: &agentv1.UserMessageAction{UserMessage: &agentv1.UserMessage{Text: text}},
	}})
}

// ExecStreamClose is exec_client_control_message.stream_close{id}.
func ExecStreamClose(id uint32) *agentv1.AgentClientMessage {
	return &agentv1.AgentClientMessage{Message: &agentv1.AgentClientMessage_ExecClientControlMessage{
		ExecClientControlMessage: &agentv1.ExecClientControlMessage{Message: &agentv1.ExecClientControlMessage_StreamClose{
			StreamClose: &agentv1.ExecClientStreamClose{Id: id},
		}},
	}}
}

// TextDelta is a server text_delta update.
func TextDelta(text string) *agentv1.AgentServerMessage {
	return &agentv1.AgentServerMessage{Message: &agentv1.AgentServerMessage_InteractionUpdate{
		InteractionUpdate: &agentv1.InteractionUpdate{Message: &agentv1.InteractionUpdate_TextDelta{
			TextDelta: &agentv1.TextDeltaUpdate{Text: text},
		}},
	}}
}

// TextOf returns the text of a text_delta message ("" otherwise).
func TextOf(m *agentv1.AgentServerMessage) string {
	return m.GetInteractionUpdate().GetTextDelta().GetText()
}

// IsHeartbeat reports whether m is a server heartbeat.
func IsHeartbeat(m *agentv1.AgentServerMessage) bool {
	return m.GetInteractionUpdate().GetHeartbeat() != nil
}
