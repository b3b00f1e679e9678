package agent

import (
	"go.uber.org/zap"

	"keygate/adapters/cursor/compile"
	"keygate/adapters/cursor/output"
	"keygate/app/run"
	"keygate/domain/conversation"
	"keygate/domain/llm"
	"keygate/domain/turn"
	agentv1 "keygate/gen/cursor/agent/v1"
)

// onClient handles one client message during the run.
func (s *session) onClient(m *agentv1.AgentClientMessage) {
	switch {
	case m.GetExecClientMessage() != nil:
		em := m.GetExecClientMessage()
		if call, ok := s.execs[em.GetId()]; ok {
			s.apply(call, call.OnExec(em))
		}
	case m.GetExecClientControlMessage() != nil:
		cm := m.GetExecClientControlMessage()
		if sc := cm.GetStreamClose(); sc != nil {
			if call, ok := s.execs[sc.GetId()]; ok {
				s.apply(call, call.OnStreamClose())
			}
		}
		if t := cm.GetThrow(); t != nil {
			if call, ok := s.execs[t.GetId()]; ok {
				s.apply(call, call.OnThrow(t))
			}
		}
	case m.GetInteractionResponse() != nil:
		r := m.GetInteractionResponse()
		if call, ok := s.queries[r.GetId()]; ok {
			s.apply(call, call.OnInteraction(r))
		}
	case m.GetConversationAction() != nil:
		s.onAction(m.GetConversationAction())
	case m.GetRunRequest() != nil, m.GetClientHeartbeat() != nil, m.GetKvClientMessage() != nil:
		// A new run request supersedes the turn in the transport; heartbeats
		// are answered there; a late KV reply has nobody waiting.
	default:
		s.log.Debug("client message ignored")
	}
}

// onAction handles a conversation action that arrives during the run.
func (s *session) onAction(a *agentv1.ConversationAction) {
	switch {
	case a.GetCancelAction() != nil:
		s.abortAll()
		s.handle.Cancel("cancelled by the user: " + a.GetCancelAction().GetReason())
	case a.GetInjectContextAction() != nil:
		s.inject(a.GetInjectContextAction())
	case a.GetUserMessageAction() != nil:
		s.userMessage("", a.GetUserMessageAction().GetUserMessage())
	case a.GetCancelSubagentAction() != nil:
		s.cancelSubagent(a.GetCancelSubagentAction().GetSubagentId())
	default:
		s.log.Info("conversation action ignored during a run")
	}
}

// inject queues a follow-up the user typed while the run works (pitfall
// P9): rejected when it targets another run, ignored when repeated,
// otherwise queued, the running round interrupted, and reported delivered
// once committed.
func (s *session) inject(in *agentv1.InjectContextAction) {
	id := in.GetInjectionId()
	if in.GetExpectedRunId() != "" && in.GetExpectedRunId() != s.turn.RequestID {
		_ = s.send(output.Injection(id, output.Rejected("the run has ended")))
		return
	}
	if s.seenInject[id] {
		return
	}
	s.seenInject[id] = true
	um := in.GetUserContext().GetUserMessage()
	if um == nil {
		s.log.Info("context injection without a user message ignored", zap.String("injection_id", id))
		return
	}
	s.userMessage(id, um)
}

// userMessage interrupts the run for a newer user message.
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
	if injectionID != "" {
		s.injections[event] = injection{id: injectionID, user: um}
		_ = s.send(output.Injection(injectionID, output.Queued()))
	}
	var detached []llm.ToolResult
	for id, call := range s.execs {
		_ = s.send(output.Abort(id))
		if a := call.Abort("interrupted by a newer user message"); a.Result != nil {
			s.completing[call.ID()] = call
			detached = append(detached, *a.Result)
		}
		delete(s.execs, id)
	}
	if d := s.handle.BreakMessages([]conversation.Message{msg}, detached...); d != run.Applied {
		// The run is closing: the message opens the next run of this turn.
		s.pending = append(s.pending, injection{id: injectionID, user: um})
		delete(s.injections, event)
	}
}

// cancelSubagent aborts the Task exec of a subagent, named by its tool call
// id; the Task completes as a tool error and the run goes on.
func (s *session) cancelSubagent(id string) {
	for execID, call := range s.execs {
		if call.ID() != id || call.Card().GetTaskToolCall() == nil {
			continue
		}
		_ = s.send(output.Abort(execID))
		s.apply(call, call.Abort("the user cancelled the subagent"))
	}
}
