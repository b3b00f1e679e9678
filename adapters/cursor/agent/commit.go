package agent

import (
	"context"
	"time"

	"go.uber.org/zap"

	"keygate/adapters/cursor/checkpoint"
	"keygate/adapters/cursor/output"
	"keygate/app/run"
	agentv1 "keygate/gen/cursor/agent/v1"
)

// onCommit publishes what a commit means for the client and releases the
// engine's barrier once the checkpoint is out (or was skipped).
func (s *session) onCommit(ctx context.Context, e run.MessagesCommitted) {
	s.view.at(e.CheckpointID, e.Messages, e.Messages != nil)
	if e.Barrier != nil {
		defer e.Barrier.Ack()
	}
	switch e.Cause.Kind {
	case run.CauseToolResult:
		s.tools.completed(e.Cause)
		// The round settles behind a barrier; a result that leaves calls
		// open is published staged, so a store lost mid-round costs only
		// the calls still open (see resume.go).
		if open := s.view.answered(e.Cause); e.Barrier != nil {
			s.publishSettled(ctx, e.CheckpointID, "")
		} else if open {
			s.publishStaged(ctx, e.CheckpointID)
		}
	case run.CauseInitialMessages:
		var then []*agentv1.AgentServerMessage
		if o := s.followUps.opening; o != nil && o.id != "" {
			then = append(then, output.Injection(o.id, output.Delivered(s.compiled.EventID, s.h.o.Now())))
			if o.user != nil {
				then = append(then, output.UserMessageAppended(o.user))
			}
		}
		if e.Barrier == nil {
			s.wire.emit(then...)
			return
		}
		// The barrier is released at once (deferred above): the provider
		// request starts while the client stores the user turn's blobs.
		pr, err := s.view.settled(ctx, e.CheckpointID)
		if err != nil {
			s.log.Warn("checkpoint not built", zap.Error(err))
			s.wire.emit(then...)
			return
		}
		s.blobs.publishWhenAcked(pr.blobs, pr.state, then...)
	case run.CauseRuntimeEvent:
		s.publishSettled(ctx, e.CheckpointID, "")
		if in, ok := s.followUps.committed(e.Cause.EventID); ok {
			s.wire.emit(output.Injection(in.id, output.Delivered(e.Cause.EventID, s.h.o.Now())))
			if in.user != nil {
				s.wire.emit(output.UserMessageAppended(in.user))
			}
		}
	case run.CauseCompaction:
		if !s.compacting {
			s.wire.emit(output.Summary(e.Cause.Summary), output.SummaryCompleted())
			s.publishSettled(ctx, e.CheckpointID, e.Cause.Summary)
			return
		}
		s.finalTurn(ctx, e.CheckpointID, e.Cause.Summary)
	case run.CauseFinalTurn:
		s.finalTurn(ctx, e.CheckpointID, "")
	}
}

func (s *session) publishSettled(ctx context.Context, checkpointID, summary string) {
	p, err := s.view.project(ctx, checkpointID, summary)
	if err != nil {
		s.log.Warn("checkpoint not built", zap.Error(err))
		return
	}
	st, blobs := checkpoint.Settled(p)
	s.blobs.publish(ctx, blobs, st)
}

// cancelAckWait bounds the wait for the ACKs of a cancelled turn's
// checkpoint: the user waits for the cancel to end the stream.
const cancelAckWait = 2 * time.Second

// publishCancelled publishes the settled checkpoint of a turn the user
// cancelled, before the stream ends: the text the model streamed (the
// engine stored it as the cycle's interrupted output) and the calls
// committed so far stay in the turn, the cards of calls that never
// completed go, and nothing is left pending. Without it the client keeps
// the user turn's checkpoint (or a staged one with open cards), and a
// reloaded chat loses the partial answer the model still has in its
// history. A turn that showed nothing yet has nothing to add.
func (s *session) publishCancelled(ctx context.Context) {
	if s.compacting || s.view.ui == nil || !s.view.ui.Cancelled() {
		return
	}
	s.view.open = nil
	ctx, cancel := context.WithTimeout(ctx, cancelAckWait)
	defer cancel()
	s.publishSettled(ctx, s.view.head, "")
}

// finalTurn ends a turn in the protocol's order: turn_ended, the staged
// final state, the settled final state twice. A compaction run sends
// summary_completed first and its compacted state three times.
func (s *session) finalTurn(ctx context.Context, checkpointID, summary string) {
	p, err := s.view.project(ctx, checkpointID, summary)
	if err != nil {
		s.log.Warn("final checkpoint not built", zap.Error(err))
		return
	}
	settled, blobs := checkpoint.Settled(p)
	first, more := checkpoint.StagedFinal(p)
	if summary != "" || s.compiled.Run.Action.Kind == run.ActionRecord {
		// A compaction or a turn that only records has no answer to stage.
		first = settled
	}
	if err := s.blobs.sync(ctx, merge(blobs, more)); err != nil {
		s.blobs.skipped("final checkpoint not published", err)
		s.wire.emit(output.TurnEnded(s.usage))
		return
	}
	if s.compacting {
		// The summary call is not streamed to the client; its text comes
		// with the commit.
		s.wire.emit(output.Summary(summary), output.SummaryCompleted())
	}
	if s.wire.send(output.TurnEnded(s.usage), output.Checkpoint(first), output.Checkpoint(settled), output.Checkpoint(settled)) == nil {
		s.h.mem.setLatest(s.convID, settled)
	}
}

func merge(a, b checkpoint.Blobs) checkpoint.Blobs {
	for k, v := range b {
		a[k] = v
	}
	return a
}
