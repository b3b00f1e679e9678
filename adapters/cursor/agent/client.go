package agent

import (
	"context"

	"go.uber.org/zap"

	"keygate/adapters/cursor/compile"
	"keygate/adapters/cursor/output"
	"keygate/app/run"
	"keygate/domain/conversation"
	"keygate/domain/llm"
	"keygate/domain/turn"
	agentv1 "keygate/gen/cursor/agent/v1"
)

// onClientEarly handles a client message that arrived while the turn waited
// for a KV reply: it waits in the backlog until the run has started.
func (s *session) onClientEarly(ctx context.Context, m *agentv1.AgentClientMessage) {
	if s.handle == nil {
		s.backlog = append(s.backlog, m)
		return
	}
	s.onClient(ctx, m)
}

// onClient routes one client message during the run.
func (s *session) onClient(ctx context.Context, m *agentv1.AgentClientMessage) {
	switch {
	case m.GetExecClientMessage() != nil:
		s.tools.onExec(ctx, m.GetExecClientMessage())
	case m.GetExecClientControlMessage() != nil:
		s.tools.onControl(ctx, m.GetExecClientControlMessage())
	case m.GetInteractionResponse() != nil:
		s.tools.onInteraction(ctx, m.GetInteractionResponse())
	case m.GetConversationAction() != nil:
		s.onAction(ctx, m.GetConversationAction())
	case m.GetRunRequest() != nil, m.GetClientHeartbeat() != nil, m.GetKvClientMessage() != nil:
		// A new run request supersedes the turn in the transport; heartbeats
		// are answered there; a late KV reply has nobody waiting.
	default:
		s.log.Debug("client message ignored")
	}
}

// onAction handles a conversation action that arrives during the run.
func (s *session) onAction(ctx context.Context, a *agentv1.ConversationAction) {
	switch {
	case a.GetCancelAction() != nil:
		s.tools.abortAll()
		s.handle.Cancel(cancelReason(a.GetCancelAction().GetReason()))
	case a.GetInjectContextAction() != nil:
		s.inject(a.GetInjectContextAction())
	case a.GetUserMessageAction() != nil:
		s.userMessage("", a.GetUserMessageAction().GetUserMessage())
	case a.GetCancelSubagentAction() != nil:
		s.tools.cancelSubagent(ctx, a.GetCancelSubagentAction().GetSubagentId())
	case a.GetBackgroundShellAction() != nil:
		s.tools.toBackground(a.GetBackgroundShellAction().GetToolCallId(), false)
	case a.GetBackgroundSubagentAction() != nil:
		s.tools.toBackground(a.GetBackgroundSubagentAction().GetToolCallId(), true)
	default:
		s.midRun(ctx, a)
	}
}

// inject takes a follow-up the user queued while the run works: rejected
// when it targets another run, ignored when repeated, otherwise queued,
// the running round interrupted, and reported delivered once committed.
func (s *session) inject(in *agentv1.InjectContextAction) {
	id := in.GetInjectionId()
	if in.GetExpectedRunId() != "" && in.GetExpectedRunId() != s.turn.RequestID {
		s.wire.emit(output.Injection(id, output.Rejected("the run has ended")))
		return
	}
	if !s.followUps.firstSight(id) {
		return
	}
	um := in.GetUserContext().GetUserMessage()
	if um == nil {
		s.systemContext(id, &agentv1.ConversationAction{Action: &agentv1.ConversationAction_InjectContextAction{InjectContextAction: in}})
		return
	}
	s.userMessage(id, um)
}

// userMessage interrupts the run for a newer user message. A run that is
// already closing cannot take it: the message then opens the next run of
// this turn.
func (s *session) userMessage(injectionID string, um *agentv1.UserMessage) {
	text := compile.Runtime(s.compiled.Mode, um.GetText())
	parts := turn.RuntimeParts(text, turn.Selection{})
	stable := um.GetMessageId()
	if stable == "" {
		stable = s.turn.RequestID + ":" + injectionID
	}
	event := conversation.UserEventID(stable, text)
	msg, err := conversation.NewMessage(conversation.MessageSpec{ID: conversation.RuntimeID(event), Role: llm.RoleUser,
		Origin: conversation.OriginRuntime, RuntimeEventID: event, Parts: parts})
	if err != nil {
		s.log.Warn("follow-up message not built", zap.Error(err))
		return
	}
	in := injection{id: injectionID, user: um}
	if injectionID != "" {
		s.followUps.taken(event, in)
		s.wire.emit(output.Injection(injectionID, output.Queued()))
	}
	detached := s.tools.interrupt("interrupted by a newer user message")
	if d := s.handle.BreakMessages([]conversation.Message{msg}, detached...); d != run.Applied {
		s.followUps.missed(event, in)
	}
}
