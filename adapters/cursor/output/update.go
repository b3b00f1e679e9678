package output

import (
	"time"

	"keygate/domain/llm"
	agentv1 "keygate/gen/cursor/agent/v1"
)

type msg = agentv1.AgentServerMessage

func update(u *agentv1.InteractionUpdate) *msg {
	return &msg{Message: &agentv1.AgentServerMessage_InteractionUpdate{InteractionUpdate: u}}
}

// Text is a text_delta.
func Text(s string) *msg {
	return update(&agentv1.InteractionUpdate{Message: &agentv1.InteractionUpdate_TextDelta{TextDelta: &agentv1.TextDeltaUpdate{Text: s}}})
}

// Thinking is a thinking_delta.
func Thinking(s string) *msg {
	return update(&agentv1.InteractionUpdate{Message: &agentv1.InteractionUpdate_ThinkingDelta{ThinkingDelta: &agentv1.ThinkingDeltaUpdate{Text: s}}})
}

// ThinkingCompleted closes a thinking block.
func ThinkingCompleted(d time.Duration) *msg {
	return update(&agentv1.InteractionUpdate{Message: &agentv1.InteractionUpdate_ThinkingCompleted{
		ThinkingCompleted: &agentv1.ThinkingCompletedUpdate{ThinkingDurationMs: int32(d.Milliseconds())}}})
}

// PartialToolCall is a partial_tool_call: the placeholder card (no
// started_at) while the model streams arguments, with an argument delta.
func PartialToolCall(callID string, card *agentv1.ToolCall, delta, modelCallID string) *msg {
	return update(&agentv1.InteractionUpdate{Message: &agentv1.InteractionUpdate_PartialToolCall{PartialToolCall: &agentv1.PartialToolCallUpdate{
		CallId: callID, ToolCall: card, ArgsTextDelta: delta, ModelCallId: modelCallID}}})
}

// ToolCallStarted is sent right before a call's exec or query.
func ToolCallStarted(callID string, card *agentv1.ToolCall, modelCallID string) *msg {
	return update(&agentv1.InteractionUpdate{Message: &agentv1.InteractionUpdate_ToolCallStarted{ToolCallStarted: &agentv1.ToolCallStartedUpdate{
		CallId: callID, ToolCall: card, ModelCallId: modelCallID}}})
}

// ToolCallCompleted carries the card with its typed result.
func ToolCallCompleted(callID string, card *agentv1.ToolCall, modelCallID string) *msg {
	return update(&agentv1.InteractionUpdate{Message: &agentv1.InteractionUpdate_ToolCallCompleted{ToolCallCompleted: &agentv1.ToolCallCompletedUpdate{
		CallId: callID, ToolCall: card, ModelCallId: modelCallID}}})
}

// ToolCallDelta is live tool output (shell stdout and stderr).
func ToolCallDelta(callID string, d *agentv1.ToolCallDelta, modelCallID string) *msg {
	return update(&agentv1.InteractionUpdate{Message: &agentv1.InteractionUpdate_ToolCallDelta{ToolCallDelta: &agentv1.ToolCallDeltaUpdate{
		CallId: callID, ToolCallDelta: d, ModelCallId: modelCallID}}})
}

// Tokens is a token_delta snapshot of output tokens.
func Tokens(n int64) *msg {
	return update(&agentv1.InteractionUpdate{Message: &agentv1.InteractionUpdate_TokenDelta{TokenDelta: &agentv1.TokenDeltaUpdate{Tokens: int32(n)}}})
}

// TurnEnded reports the turn's usage; counts the provider did not report
// are left out. Input counts fresh and cached input together, as the client
// shows the total prompt size.
func TurnEnded(u llm.Usage) *msg {
	te := &agentv1.TurnEndedUpdate{}
	set := func(f llm.UsageFields, v int64) *int64 {
		if u.Known&f == 0 {
			return nil
		}
		return &v
	}
	te.InputTokens = set(llm.UsageInput, u.Input+u.CacheRead+u.CacheWrite)
	te.OutputTokens = set(llm.UsageOutput, u.Output)
	te.CacheReadTokens = set(llm.UsageCacheRead, u.CacheRead)
	te.CacheWriteTokens = set(llm.UsageCacheWrite, u.CacheWrite)
	te.ReasoningTokens = set(llm.UsageReasoning, u.Reasoning)
	return update(&agentv1.InteractionUpdate{Message: &agentv1.InteractionUpdate_TurnEnded{TurnEnded: te}})
}

// SummaryStarted opens a compaction; Summary and SummaryCompleted follow.
func SummaryStarted() *msg {
	return update(&agentv1.InteractionUpdate{Message: &agentv1.InteractionUpdate_SummaryStarted{SummaryStarted: &agentv1.SummaryStartedUpdate{}}})
}

// Summary carries the summary text.
func Summary(text string) *msg {
	return update(&agentv1.InteractionUpdate{Message: &agentv1.InteractionUpdate_Summary{Summary: &agentv1.SummaryUpdate{Summary: text}}})
}

// SummaryCompleted ends a compaction.
func SummaryCompleted() *msg {
	return update(&agentv1.InteractionUpdate{Message: &agentv1.InteractionUpdate_SummaryCompleted{SummaryCompleted: &agentv1.SummaryCompletedUpdate{}}})
}

// UserMessageAppended says a queued user message is now in the
// conversation.
func UserMessageAppended(um *agentv1.UserMessage) *msg {
	return update(&agentv1.InteractionUpdate{Message: &agentv1.InteractionUpdate_UserMessageAppended{UserMessageAppended: &agentv1.UserMessageAppendedUpdate{UserMessage: um}}})
}

// Injection reports the state of a queued follow-up (InjectContextAction).
func Injection(id string, st *agentv1.ContextInjectionState) *msg {
	return update(&agentv1.InteractionUpdate{Message: &agentv1.InteractionUpdate_ContextInjectionState{
		ContextInjectionState: &agentv1.ContextInjectionStateUpdate{InjectionId: id, State: st}}})
}

// Queued is the first of the injection states, before Delivered or
// Rejected.
func Queued() *agentv1.ContextInjectionState {
	return &agentv1.ContextInjectionState{State: &agentv1.ContextInjectionState_Queued{Queued: &agentv1.ContextInjectionQueued{}}}
}

// Delivered names the batch that carried the message.
func Delivered(batch string, at time.Time) *agentv1.ContextInjectionState {
	return &agentv1.ContextInjectionState{State: &agentv1.ContextInjectionState_Delivered{Delivered: &agentv1.ContextInjectionDelivered{
		DeliveryBatchId: batch, DeliveredAtMs: at.UnixMilli()}}}
}

// Rejected says why an injection was refused.
func Rejected(reason string) *agentv1.ContextInjectionState {
	return &agentv1.ContextInjectionState{State: &agentv1.ContextInjectionState_Rejected{Rejected: &agentv1.ContextInjectionRejected{Reason: reason}}}
}
