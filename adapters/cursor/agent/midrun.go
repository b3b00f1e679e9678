package agent

import (
	"context"

	"go.uber.org/zap"

	"keygate/adapters/cursor/compile"
	"keygate/adapters/cursor/output"
	"keygate/app/run"
	agentv1 "keygate/gen/cursor/agent/v1"
)

// midRun handles a conversation action that arrives while a run works and
// is not one the turn controls itself (cancels, follow-ups, moves to the
// background): its message joins the run at the run's next boundary (a
// finished background task, late answers, notifications), it opens the
// next run of the turn (a shell command, a plan to start or carry out, a
// compaction), or it is moot while a run works (a resume, a goal
// continuation). package compile decides which.
func (s *session) midRun(ctx context.Context, a *agentv1.ConversationAction) {
	mid, err := compile.WhileRunning(a, s.turn.RequestID)
	if err != nil {
		s.log.Info("conversation action not understood during a run", zap.Error(err))
		return
	}
	switch mid.What {
	case compile.DuringInsert:
		for _, c := range a.GetBackgroundTaskCompletionAction().GetCompletions() {
			s.view.subagents.Completed(c, s.h.o.Now())
			s.tools.taskDone(ctx, c)
		}
		if s.handle.InsertMessages(mid.Message) != run.Applied {
			s.followUps.later(injection{action: a})
		}
	case compile.DuringQueue:
		s.followUps.later(injection{action: a})
	case compile.DuringIgnore:
		s.log.Info("conversation action moot during a run", zap.String("reason", mid.Reason))
	default:
		s.log.Info("conversation action ignored during a run")
	}
}

// systemContext takes context another part of the client injected while
// the run works: queued, then joining the run at its next boundary, then
// reported delivered.
func (s *session) systemContext(injectionID string, a *agentv1.ConversationAction) {
	msg, err := compile.Insertion(a, s.turn.RequestID)
	if err != nil {
		s.log.Warn("injected context not built", zap.Error(err))
		return
	}
	in := injection{id: injectionID}
	s.followUps.taken(msg.RuntimeEventID(), in)
	s.wire.emit(output.Injection(injectionID, output.Queued()))
	if s.handle.InsertMessages(msg) != run.Applied {
		s.followUps.missed(msg.RuntimeEventID(), injection{id: injectionID, action: a})
	}
}

// openedByFollowUp notes a queued follow-up that opens the turn (it came
// just after the previous run ended): it is reported queued now and
// delivered once its message is committed.
func (s *session) openedByFollowUp(a *agentv1.ConversationAction) {
	in := a.GetInjectContextAction()
	if in == nil || s.followUps.opening != nil || !s.followUps.firstSight(in.GetInjectionId()) {
		return
	}
	s.followUps.opening = &injection{id: in.GetInjectionId(), user: in.GetUserContext().GetUserMessage(), action: a}
	s.wire.emit(output.Injection(in.GetInjectionId(), output.Queued()))
}
