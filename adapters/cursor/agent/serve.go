package agent

import (
	"context"
	"errors"
	"fmt"

	"keygate/adapters/cursor/checkpoint"
	"keygate/adapters/cursor/compile"
	"keygate/adapters/cursor/output"
	"keygate/app/run"
	"keygate/domain/llm"
)

// serve relays the run's events and the client's messages until the run
// ends, and returns how the turn ends.
func (s *session) serve(ctx context.Context) error {
	if line := noticeOf(ctx); line != "" {
		// Like a retry status: on the wire only, never in the view.
		s.wire.emit(output.Thinking(line + "\n"))
		s.wire.emit(output.ThinkingCompleted(0))
	}
	if s.compacting {
		s.wire.emit(output.SummaryStarted())
	}
	events := s.handle.Events()
	done, lost := ctx.Done(), s.wire.lost
	for {
		for len(s.backlog) > 0 {
			m := s.backlog[0]
			s.backlog = s.backlog[1:]
			s.onClient(ctx, m)
		}
		// While the user turn's checkpoint waits for its ACKs the run's
		// events wait too, so nothing overtakes the checkpoint.
		next, broken := events, (<-chan struct{})(nil)
		if s.blobs.holding() {
			next, broken = nil, s.inbox.broken
		}
		select {
		case <-s.blobs.heldTimeout():
			s.blobs.release(errAckTimeout)
		case <-broken:
			s.blobs.release(fmt.Errorf("wait for kv reply: %w", s.inbox.err))
		case ev, ok := <-next:
			var o run.Outcome
			if !ok {
				o = s.handle.Outcome()
			} else if end, isEnd := ev.(run.Ended); isEnd {
				o = end.Outcome
			} else {
				s.onEvent(ctx, ev)
				continue
			}
			if s.wire.failed() != nil {
				return s.wire.failed()
			}
			if o.Status == run.Completed && !s.followUps.waiting() {
				s.leftovers(ctx)
			}
			if o.Status == run.Cancelled && byUser(o.Reason) {
				s.publishCancelled(ctx)
			}
			if o.Status != run.Completed || !s.followUps.waiting() {
				return s.end(o)
			}
			if err := s.nextRun(ctx); err != nil {
				return err
			}
			events = s.handle.Events()
		case m := <-s.inbox.msgs:
			if kv := m.GetKvClientMessage(); kv != nil && s.blobs.file(kv) {
				s.blobs.onReply()
				continue
			}
			s.onClient(ctx, m)
		case w := <-s.tools.webDone:
			s.tools.onWeb(ctx, w)
		case call := <-s.tools.bg.expired:
			s.tools.awaitExpired(ctx, call)
		case <-lost:
			// The client's stream is gone: nothing more reaches it. The run
			// stops and the turn ends once it has.
			s.handle.Cancel(s.wire.failed().Error())
			if s.blobs.holding() {
				s.blobs.release(s.wire.failed())
			}
			lost = nil
		case <-done:
			// The transport stopped the turn (superseded, orphaned or
			// closing): abort the client's execs and let the run end; the
			// run's context is this one, so the engine stops too.
			s.tools.abortAll()
			s.handle.Cancel(context.Cause(ctx).Error())
			if s.blobs.holding() {
				s.blobs.release(context.Cause(ctx))
			}
			done = nil
		}
	}
}

// onEvent routes one event of the run.
func (s *session) onEvent(ctx context.Context, ev run.Event) {
	switch e := ev.(type) {
	case run.TextDelta:
		if s.compacting {
			s.wire.emit(output.Summary(e.Text))
			return
		}
		s.view.ui.Text(e.Text)
		s.wire.emit(output.Text(e.Text))
	case run.ThinkingDelta:
		s.view.ui.Thinking(e.Text)
		s.wire.emit(output.Thinking(e.Text))
	case run.ThinkingEnd:
		s.view.ui.ThinkingDone(e.Duration)
		s.wire.emit(output.ThinkingCompleted(e.Duration))
	case run.ToolCallStart, run.ToolCallArgsDelta, run.ToolCallFailed:
		s.tools.streaming(e)
	case run.Usage:
		s.usage = s.usage.Add(e.Usage)
		s.view.usedTok = e.Usage.ContextInput() + e.Usage.Output
		s.wire.emit(output.Tokens(e.Usage.Output))
	case run.UsageSnapshot:
		s.view.usedTok = e.Tokens
	case run.CompactionStarted:
		s.wire.emit(output.SummaryStarted())
	case run.ModelStatus:
		// The client renders no status line of its own; a thinking block
		// is what it shows live while a turn waits, and the statuses stay
		// out of the turn's checkpoint (the view), as they are no output.
		s.wire.emit(output.Thinking(e.Line + "\n"))
	case run.ModelStatusEnd:
		s.wire.emit(output.ThinkingCompleted(e.Duration))
	case run.ExecuteToolRound:
		s.startRound(ctx, e)
	case run.MessagesCommitted:
		// The turn is in the store now: a replica taking the request id
		// after this one died resumes it from there, not from its opening
		// append again.
		s.turn.Committed(ctx)
		s.onCommit(ctx, e)
	}
	// run.ModelAttemptFailed is logged by the engine; the user learns of
	// it from the run.ModelStatus that follows a retryable one.
}

// startRound dispatches a round's calls, then publishes the staged
// checkpoint of the open round.
func (s *session) startRound(ctx context.Context, e run.ExecuteToolRound) {
	s.tools.start(ctx, e.Calls, s.env)
	s.view.opened(checkpoint.Pending{RoundID: e.RoundID, Calls: e.Calls,
		Text: e.Lead.Text, Thinking: e.Lead.Thinking, Replay: e.Lead.Replay})
	s.publishStaged(ctx, s.view.head)
}

// end maps the run's outcome to the turn's end.
func (s *session) end(o run.Outcome) error {
	switch o.Status {
	case run.Completed:
		return nil
	case run.Cancelled:
		return classify(errRunCancelled, errors.New(cancelText(o.Reason)))
	}
	if o.Failure == nil {
		return fmt.Errorf("run ended %s", o.Status)
	}
	return o.Failure
}

// nextRun starts the run of a follow-up that missed the previous run.
func (s *session) nextRun(ctx context.Context) error {
	s.followUps.next()
	s.usage = llm.Usage{}
	return s.prepare(ctx)
}

// leftovers takes the messages read but not handled when the run ended: a
// follow-up among them starts the next run of this turn (the transport
// would otherwise never see it), anything else is moot now.
func (s *session) leftovers(ctx context.Context) {
	for _, m := range s.inbox.quiesce() {
		a := m.GetConversationAction()
		switch {
		case a.GetInjectContextAction().GetUserContext().GetUserMessage() != nil:
			in := a.GetInjectContextAction()
			if !s.followUps.firstSight(in.GetInjectionId()) {
				continue
			}
			s.wire.emit(output.Injection(in.GetInjectionId(), output.Queued()))
			s.followUps.later(injection{id: in.GetInjectionId(), user: in.GetUserContext().GetUserMessage()})
		case a.GetUserMessageAction().GetUserMessage() != nil:
			s.followUps.later(injection{user: a.GetUserMessageAction().GetUserMessage()})
		case a != nil:
			// Another action that opens a run (a shell command, a
			// notification, a finished task) opens the next one.
			if mid, err := compile.WhileRunning(a, s.turn.RequestID); err == nil &&
				(mid.What == compile.DuringQueue || mid.What == compile.DuringInsert) {
				s.followUps.later(injection{action: a})
			}
		}
	}
	if s.followUps.waiting() {
		s.inbox.listen(ctx)
	}
}
