package agent

import (
	"context"
	"errors"
	"fmt"
	"time"

	"connectrpc.com/connect"
	"go.uber.org/zap"

	"keygate/adapters/cursor/checkpoint"
	"keygate/adapters/cursor/output"
	"keygate/adapters/cursor/tools"
	"keygate/app/run"
	"keygate/domain/llm"
	agentv1 "keygate/gen/cursor/agent/v1"
)

// serve relays the run's events and the client's messages until the run
// ends, and returns how the turn ends.
func (s *session) serve() error {
	if s.compacting {
		_ = s.send(output.SummaryStarted())
	}
	events := s.handle.Events()
	done := s.ctx.Done()
	for {
		for len(s.backlog) > 0 {
			m := s.backlog[0]
			s.backlog = s.backlog[1:]
			s.onClient(m)
		}
		// While the user turn's checkpoint waits for its ACKs the run's
		// events wait too, so nothing overtakes the checkpoint.
		next, acks, readErr := events, (<-chan time.Time)(nil), (chan error)(nil)
		if s.unacked != nil {
			next, acks, readErr = nil, s.unacked.timer.C, s.readErr
		}
		select {
		case <-acks:
			s.resolveUnacked(ErrAckTimeout)
		case err := <-readErr:
			s.readErr <- err
			s.resolveUnacked(fmt.Errorf("wait for kv reply: %w", err))
		case ev, ok := <-next:
			var o run.Outcome
			if !ok {
				o = s.handle.Outcome()
			} else if end, isEnd := ev.(run.Ended); isEnd {
				o = end.Outcome
			} else {
				s.onEvent(ev)
				continue
			}
			if o.Status == run.Completed && len(s.pending) == 0 {
				s.leftovers()
			}
			if o.Status != run.Completed || len(s.pending) == 0 {
				return s.end(o)
			}
			if err := s.next(); err != nil {
				return asConnect(err)
			}
			events = s.handle.Events()
		case m := <-s.inbox:
			if kv := m.GetKvClientMessage(); kv != nil && s.fileSet(kv) {
				if s.unacked != nil {
					s.onUnacked()
				}
				continue
			}
			s.onClient(m)
		case w := <-s.webDone:
			s.apply(w.call, w.call.OnWeb(w.content, w.err))
		case <-done:
			// The transport stopped the turn (superseded, orphaned or
			// closing): abort the client's execs and let the run end; the
			// run's context is this one, so the engine stops too.
			s.abortAll()
			s.handle.Cancel(context.Cause(s.ctx).Error())
			if s.unacked != nil {
				s.resolveUnacked(context.Cause(s.ctx))
			}
			done = nil
		}
	}
}

func (s *session) onEvent(ev run.Event) {
	switch e := ev.(type) {
	case run.TextDelta:
		if s.compacting {
			_ = s.send(output.Summary(e.Text))
			return
		}
		s.ui.Text(e.Text)
		_ = s.send(output.Text(e.Text))
	case run.ThinkingDelta:
		s.ui.Thinking(e.Text)
		_ = s.send(output.Thinking(e.Text))
	case run.ThinkingEnd:
		s.ui.ThinkingDone(e.Duration)
		_ = s.send(output.ThinkingCompleted(e.Duration))
	case run.ToolCallStart:
		s.modelCall[e.CallID] = e.ModelCallID
		_ = s.send(output.PartialToolCall(e.CallID, placeholder(e.CallID), "", e.ModelCallID))
	case run.ToolCallArgsDelta:
		_ = s.send(output.PartialToolCall(e.CallID, placeholder(e.CallID), e.Text, s.modelCall[e.CallID]))
	case run.ToolCallFailed:
		card := placeholder(e.CallID)
		_ = s.send(output.ToolCallCompleted(e.CallID, card, s.modelCall[e.CallID]))
	case run.Usage:
		s.usage = s.usage.Add(e.Usage)
		s.usedTok = e.Usage.ContextInput() + e.Usage.Output
		_ = s.send(output.Tokens(e.Usage.Output))
	case run.UsageSnapshot:
		s.usedTok = e.Tokens
	case run.CompactionStarted:
		_ = s.send(output.SummaryStarted())
	case run.ExecuteToolRound:
		s.startRound(e)
	case run.MessagesCommitted:
		s.onCommit(e)
	case run.ModelAttemptFailed:
		s.log.Info("model attempt failed", zap.Int("attempt", e.Attempt), zap.Bool("retrying", e.Retrying), zap.String("message", e.Message))
	}
}

func placeholder(callID string) *agentv1.ToolCall {
	id := callID
	return &agentv1.ToolCall{ToolCallId: &id}
}

// startRound dispatches a round's calls, then publishes the staged
// checkpoint of the open round.
func (s *session) startRound(e run.ExecuteToolRound) {
	for _, c := range e.Calls {
		call := tools.New(c, s.env())
		a := call.Start()
		s.ui.Tool(call.Card())
		_ = s.send(output.ToolCallStarted(c.CallID, call.Card(), s.modelCall[c.CallID]))
		s.apply(call, a)
	}
	p, err := s.project(s.headID(), "")
	if err != nil {
		s.log.Warn("staged checkpoint not built", zap.Error(err))
		return
	}
	st, blobs := checkpoint.Staged(p, checkpoint.Pending{RoundID: e.RoundID, Calls: e.Calls})
	s.publish(blobs, st)
}

// apply carries out a call's next action.
func (s *session) apply(call *tools.Call, a tools.Action) {
	if a.Exec != nil {
		id, err := s.turn.Output.NextExecID()
		if err != nil {
			a = call.Abort("no exec id left: " + err.Error())
		} else {
			s.execs[id] = call
			_ = s.send(output.Exec(id, a.Exec))
		}
	}
	if a.Query != nil {
		id, err := s.turn.Output.NextInteractionID()
		if err != nil {
			a = call.Abort("no interaction id left: " + err.Error())
		} else {
			s.queries[id] = call
			_ = s.send(output.Query(id, a.Query))
		}
	}
	if a.Web != nil {
		if s.h.o.Web == nil {
			a = call.Abort("web access is not configured")
		} else {
			s.web(call, a.Web)
		}
	}
	if a.Delta != nil {
		_ = s.send(output.ToolCallDelta(call.ID(), a.Delta, s.modelCall[call.ID()]))
	}
	if a.Result != nil {
		for id, c := range s.execs {
			if c == call {
				delete(s.execs, id)
			}
		}
		for id, c := range s.queries {
			if c == call {
				delete(s.queries, id)
			}
		}
		// tool_call_completed goes out once the result is committed
		// (onCommit), so a client never shows a result the store lacks.
		s.completing[call.ID()] = call
		if todos, ok := call.Todos(); ok {
			s.todos, s.todosSet = todos, true
		}
		s.handle.ToolResult(*a.Result)
	}
}

// abortAll sends an abort for every running exec.
func (s *session) abortAll() {
	for id := range s.execs {
		_ = s.send(output.Abort(id))
		delete(s.execs, id)
	}
}

// end maps the run's outcome to the turn's end.
func (s *session) end(o run.Outcome) error {
	switch o.Status {
	case run.Completed:
		return nil
	case run.Cancelled:
		return connect.NewError(connect.CodeCanceled, errors.New("run cancelled: "+o.Reason))
	}
	return FailureError(o.Failure)
}

// asConnect keeps Connect errors and makes others internal.
func asConnect(err error) error {
	var ce *connect.Error
	if errors.As(err, &ce) {
		return ce
	}
	return connect.NewError(connect.CodeInternal, err)
}

// completedCalls sends tool_call_completed for committed results: the
// call named by a tool-result commit, or every delivered one after an
// interruption.
func (s *session) completedCalls(c run.Cause) {
	for id, call := range s.completing {
		if !c.Interrupted && id != c.CallID {
			continue
		}
		delete(s.completing, id)
		s.ui.Tool(call.Card())
		_ = s.send(output.ToolCallCompleted(call.ID(), call.Card(), s.modelCall[call.ID()]))
	}
}

// next starts the run of a follow-up that missed the previous run.
func (s *session) next() error {
	late := s.pending[0]
	s.pending = s.pending[1:]
	s.late = &late
	s.usage = llm.Usage{}
	return s.prepare()
}

// leftovers takes the messages read but not handled when the run ended: a
// follow-up among them starts the next run of this turn (the transport
// would otherwise never see it), anything else is moot now.
func (s *session) leftovers() {
	for _, m := range s.quiesce() {
		a := m.GetConversationAction()
		switch {
		case a.GetInjectContextAction().GetUserContext().GetUserMessage() != nil:
			in := a.GetInjectContextAction()
			if s.seenInject[in.GetInjectionId()] {
				continue
			}
			s.seenInject[in.GetInjectionId()] = true
			_ = s.send(output.Injection(in.GetInjectionId(), output.Queued()))
			s.pending = append(s.pending, injection{id: in.GetInjectionId(), user: in.GetUserContext().GetUserMessage()})
		case a.GetUserMessageAction().GetUserMessage() != nil:
			s.pending = append(s.pending, injection{user: a.GetUserMessageAction().GetUserMessage()})
		}
	}
	if len(s.pending) > 0 {
		s.listen()
	}
}
