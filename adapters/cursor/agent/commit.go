package agent

import (
	"go.uber.org/zap"

	"keygate/adapters/cursor/checkpoint"
	"keygate/adapters/cursor/output"
	"keygate/app/run"
	agentv1 "keygate/gen/cursor/agent/v1"
)

// onCommit publishes what a commit means for the client and releases the
// engine's barrier once the checkpoint is out (or was skipped).
func (s *session) onCommit(e run.MessagesCommitted) {
	s.cur, s.curMsgs, s.curKnown = e.CheckpointID, e.Messages, e.Messages != nil
	if e.Barrier != nil {
		defer e.Barrier.Ack()
	}
	switch e.Cause.Kind {
	case run.CauseToolResult:
		s.completedCalls(e.Cause)
		if e.Barrier != nil {
			s.publishSettled(e.CheckpointID, "")
		}
	case run.CauseInitialMessages:
		var then []*agentv1.AgentServerMessage
		if s.late != nil && s.late.id != "" {
			then = append(then, output.Injection(s.late.id, output.Delivered(s.compiled.EventID, s.h.o.Now())),
				output.UserMessageAppended(s.late.user))
		}
		if e.Barrier == nil {
			s.sendAll(then)
			return
		}
		// The barrier is released at once (deferred above): the provider
		// request starts while the client stores the user turn's blobs.
		pr := s.predicted
		s.predicted = nil
		if pr == nil || pr.id != e.CheckpointID {
			p, err := s.project(e.CheckpointID, "")
			if err != nil {
				s.log.Warn("checkpoint not built", zap.Error(err))
				s.sendAll(then)
				return
			}
			pr = &predicted{id: e.CheckpointID}
			pr.state, pr.blobs = checkpoint.Settled(p)
		}
		s.publishWhenAcked(pr.blobs, pr.state, then...)
	case run.CauseRuntimeEvent:
		s.publishSettled(e.CheckpointID, "")
		if inj, ok := s.injections[e.Cause.EventID]; ok {
			delete(s.injections, e.Cause.EventID)
			_ = s.send(output.Injection(inj.id, output.Delivered(e.Cause.EventID, s.h.o.Now())))
			_ = s.send(output.UserMessageAppended(inj.user))
		}
	case run.CauseCompaction:
		if !s.compacting {
			_ = s.send(output.Summary(e.Cause.Summary))
			_ = s.send(output.SummaryCompleted())
			s.publishSettled(e.CheckpointID, e.Cause.Summary)
			return
		}
		s.finalTurn(e.CheckpointID, e.Cause.Summary)
	case run.CauseFinalTurn:
		s.finalTurn(e.CheckpointID, "")
	}
}

func (s *session) sendAll(msgs []*agentv1.AgentServerMessage) {
	for _, m := range msgs {
		_ = s.send(m)
	}
}

func (s *session) publishSettled(checkpointID, summary string) {
	p, err := s.project(checkpointID, summary)
	if err != nil {
		s.log.Warn("checkpoint not built", zap.Error(err))
		return
	}
	st, blobs := checkpoint.Settled(p)
	s.publish(blobs, st)
}

// finalTurn ends a turn in the protocol's order: turn_ended, the staged
// final state, the settled final state twice. A compaction run sends
// summary_completed first and its compacted state three times.
func (s *session) finalTurn(checkpointID, summary string) {
	p, err := s.project(checkpointID, summary)
	if err != nil {
		s.log.Warn("final checkpoint not built", zap.Error(err))
		return
	}
	settled, blobs := checkpoint.Settled(p)
	first, more := checkpoint.StagedFinal(p)
	if summary != "" {
		first = settled
	}
	if err := s.syncBlobs(merge(blobs, more)); err != nil {
		s.log.Warn("final checkpoint not published", zap.Error(err))
		_ = s.send(output.TurnEnded(s.usage))
		return
	}
	if s.compacting {
		// The summary call is not streamed to the client; its text comes
		// with the commit.
		_ = s.send(output.Summary(summary))
		_ = s.send(output.SummaryCompleted())
	}
	_ = s.send(output.TurnEnded(s.usage))
	_ = s.send(output.Checkpoint(first))
	_ = s.send(output.Checkpoint(settled))
	_ = s.send(output.Checkpoint(settled))
	s.h.setLatest(s.convID, settled)
}
