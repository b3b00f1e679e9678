package cursortest

import (
	agentv1 "keygate/gen/cursor/agent/v1"
)

// Kind names a server message for order assertions: "text", "thinking",
// "thinking_completed", "partial_tool_call", "tool_call_started",
// "tool_call_delta", "tool_call_completed", "token_delta", "turn_ended",
// "summary_started", "summary", "summary_completed", "user_message_appended",
// "injection", "heartbeat", "shell_output:<event>" (shell_output:start,
// shell_output:stdout, ...), "checkpoint:staged", "checkpoint:settled",
// "kv_set", "kv_get", "exec:<args>" (exec:read_args, exec:shell_stream_args,
// ...), "abort", "query:<kind>", or "other".
func Kind(m *agentv1.AgentServerMessage) string {
	switch {
	case m.GetInteractionUpdate() != nil:
		return updateKind(m.GetInteractionUpdate())
	case m.GetConversationCheckpointUpdate() != nil:
		if len(m.GetConversationCheckpointUpdate().GetPendingToolCalls()) > 0 {
			return "checkpoint:staged"
		}
		return "checkpoint:settled"
	case m.GetKvServerMessage().GetSetBlobArgs() != nil:
		return "kv_set"
	case m.GetKvServerMessage().GetGetBlobArgs() != nil:
		return "kv_get"
	case m.GetExecServerMessage() != nil:
		return "exec:" + string(m.GetExecServerMessage().ProtoReflect().WhichOneof(
			m.GetExecServerMessage().ProtoReflect().Descriptor().Oneofs().ByName("message")).Name())
	case m.GetExecServerControlMessage().GetAbort() != nil:
		return "abort"
	case m.GetInteractionQuery() != nil:
		q := m.GetInteractionQuery().ProtoReflect()
		return "query:" + string(q.WhichOneof(q.Descriptor().Oneofs().ByName("query")).Name())
	}
	return "other"
}

func updateKind(u *agentv1.InteractionUpdate) string {
	switch {
	case u.GetTextDelta() != nil:
		return "text"
	case u.GetThinkingDelta() != nil:
		return "thinking"
	case u.GetThinkingCompleted() != nil:
		return "thinking_completed"
	case u.GetPartialToolCall() != nil:
		return "partial_tool_call"
	case u.GetToolCallStarted() != nil:
		return "tool_call_started"
	case u.GetToolCallDelta() != nil:
		return "tool_call_delta"
	case u.GetToolCallCompleted() != nil:
		return "tool_call_completed"
	case u.GetTokenDelta() != nil:
		return "token_delta"
	case u.GetTurnEnded() != nil:
		return "turn_ended"
	case u.GetSummaryStarted() != nil:
		return "summary_started"
	case u.GetSummary() != nil:
		return "summary"
	case u.GetSummaryCompleted() != nil:
		return "summary_completed"
	case u.GetUserMessageAppended() != nil:
		return "user_message_appended"
	case u.GetContextInjectionState() != nil:
		return "injection"
	case u.GetHeartbeat() != nil:
		return "heartbeat"
	case u.GetShellOutputDelta() != nil:
		so := u.GetShellOutputDelta().ProtoReflect()
		if f := so.WhichOneof(so.Descriptor().Oneofs().ByName("event")); f != nil {
			return "shell_output:" + string(f.Name())
		}
		return "shell_output"
	}
	return "other"
}

// Kinds returns the kinds of msgs, in order.
func Kinds(msgs []*agentv1.AgentServerMessage) []string {
	out := make([]string, len(msgs))
	for i, m := range msgs {
		out[i] = Kind(m)
	}
	return out
}
