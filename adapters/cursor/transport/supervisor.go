package transport

import (
	"context"
	"errors"
	"fmt"
	"sync"
	"time"

	"connectrpc.com/connect"
	"go.uber.org/zap"

	"keygate/adapters/cursor/frame"
	agentv1 "keygate/gen/cursor/agent/v1"
)

// turnRun is one turn handed to the RunHandler. Its context lives on the
// goroutine that serves it (start); the supervisor keeps the cancel func
// and the cause it cancelled with.
type turnRun struct {
	turn   *Turn
	inbox  *queue
	output *turnOutput
	cancel context.CancelCauseFunc
	// cause is the first cause stop gave, as context.Cause reports it.
	cause error
}

// stop cancels the running turn's context with cause; the first cause
// stays. Only the supervisor's goroutine calls it, once the turn started.
func (tr *turnRun) stop(cause error) {
	if tr.cause == nil {
		tr.cause = cause
	}
	tr.cancel(cause)
}

type runResult struct {
	run *turnRun
	err error
}

func (t *Transport) newTurnRun(req *agentv1.AgentRunRequest, followUp *agentv1.ConversationAction, parent Parent) *turnRun {
	tr := &turnRun{inbox: newQueue(t.ledger), output: &turnOutput{t: t}}
	tr.turn = &Turn{RequestID: t.id, Request: req, FollowUp: followUp, Parent: parent, Inbox: tr.inbox, Output: tr.output}
	var once sync.Once
	tr.turn.committed = func(ctx context.Context) {
		once.Do(func() {
			if hook := t.reg.onCommitted.Load(); hook != nil {
				(*hook)(ctx, t.id)
			}
		})
	}
	return tr
}

// supervisor runs the turns of one transport one after another and decides
// when and how its stream ends. It is the only goroutine that touches the
// run state, so none of it needs a lock.
type supervisor struct {
	t          *Transport
	active     *turnRun // running, possibly cancelling
	queued     *turnRun // waits for active to return (supersede)
	last       *agentv1.AgentRunRequest
	lastParent Parent
	done       chan runResult
	linger     *time.Timer
	orphan     *time.Timer
	orphaned   bool
	stopping   bool
	endWith    error // how the stream ends once closing
	closing    bool  // no more turns: the uplink closed or the request id went upstream
	handedOver bool  // closing because the request id went upstream
}

func (t *Transport) supervise() {
	defer close(t.exited)
	s := &supervisor{t: t, done: make(chan runResult)}
	s.orphan = time.NewTimer(t.reg.cfg.OrphanGrace) // the client must subscribe within the grace
	defer s.orphan.Stop()
	for {
		var lingerC <-chan time.Time
		if s.linger != nil {
			lingerC = s.linger.C
		}
		stopC := t.reg.stopping
		if s.stopping {
			stopC = nil
		}
		select {
		case <-t.wake:
			for _, ev := range t.takeEvents() {
				s.handle(ev)
			}
			if s.closing && s.active == nil {
				s.finish(s.endWith)
				return
			}
		case res := <-s.done:
			if end, finished := s.runDone(res); finished {
				s.finish(end)
				return
			}
		case <-lingerC:
			s.finish(nil)
			return
		case <-s.orphan.C:
			if s.t.subscribers() > 0 {
				continue // one attached just now; its event is on its way
			}
			if s.active == nil {
				s.finish(nil)
				return
			}
			s.orphaned = true
			s.cancelAll(ErrOrphaned)
		case <-stopC:
			s.stopping = true
			if s.active == nil {
				s.finish(connect.NewError(connect.CodeUnavailable, ErrRegistryClosed))
				return
			}
			s.cancelAll(ErrRegistryClosed)
		}
	}
}

func (s *supervisor) handle(ev event) {
	switch ev.kind {
	case evSubs:
		if ev.subs > 0 {
			s.orphan.Stop()
		} else if !s.orphaned {
			s.orphan.Reset(s.t.reg.cfg.OrphanGrace)
		}
	case evUplinkClosed:
		s.closing = true
		if s.active != nil {
			s.endWith = ev.err
			if s.endWith == nil {
				s.endWith = cancelled(ErrUplinkClosed)
			}
			s.cancelAll(ErrUplinkClosed)
		} else {
			s.endWith = ev.err
		}
	case evHandOver:
		// The request id's next turn is Cursor's: a lingering stream ends
		// as a success, a running turn is superseded.
		s.closing, s.handedOver = true, true
		if s.active != nil {
			s.endWith = cancelled(ErrSuperseded)
			s.cancelAll(ErrSuperseded)
		}
	case evDrain:
		// The running turn finishes; the stream ends after it, with
		// success, so the client's next turn goes to another replica.
		s.closing = true
	case evAbandon:
		s.closing = true
		if s.active != nil {
			s.endWith = cancelled(ErrAbandoned)
			s.cancelAll(ErrAbandoned)
		}
	case evTurn:
		s.last, s.lastParent = ev.msg.GetRunRequest(), ev.parent
		s.enqueue(s.t.newTurnRun(s.last, nil, ev.parent))
	case evMessage:
		switch target := s.target(); {
		case target != nil:
			target.inbox.push(queued{msg: ev.msg, size: ev.size})
		case opensFollowUp(ev.msg.GetConversationAction()) && s.last != nil:
			s.t.ledger.give(ev.size)
			s.enqueue(s.t.newTurnRun(s.last, ev.msg.GetConversationAction(), s.lastParent))
		default:
			s.t.ledger.give(ev.size)
			s.t.reg.log.Debug("client message outside a turn dropped",
				zap.String("request_id", s.t.id), zap.String("kind", messageKind(ev.msg)))
		}
	}
}

func (s *supervisor) target() *turnRun {
	if s.queued != nil {
		return s.queued
	}
	return s.active
}

// enqueue starts tr now, or supersedes the running turn and starts tr once
// that one has returned.
func (s *supervisor) enqueue(tr *turnRun) {
	if s.orphaned || s.stopping || s.closing {
		return
	}
	if s.active == nil {
		s.stopLinger()
		s.start(tr)
		return
	}
	if s.queued == nil {
		s.active.stop(ErrSuperseded)
	} else {
		s.queued.inbox.discard() // superseded before it started
	}
	s.queued = tr
}

// start serves tr on a goroutine of its own, under a context the
// transport alone cancels (tr.stop).
func (s *supervisor) start(tr *turnRun) {
	s.active = tr
	h := s.t.reg.handler
	ctx, cancel := context.WithCancelCause(s.t.owner.runContext())
	tr.cancel = cancel
	go func(ctx context.Context) {
		err := serveSafely(ctx, h, tr.turn)
		tr.output.over.Store(true)
		s.done <- runResult{run: tr, err: err}
	}(ctx)
}

func serveSafely(ctx context.Context, h RunHandler, turn *Turn) (err error) {
	defer func() {
		if p := recover(); p != nil {
			err = connect.NewError(connect.CodeInternal, fmt.Errorf("run handler panicked: %v", p))
		}
	}()
	return h.ServeRun(ctx, turn)
}

// runDone decides what follows a returned turn; finished reports that the
// stream ends now with end.
func (s *supervisor) runDone(res runResult) (end error, finished bool) {
	res.run.stop(context.Canceled)
	s.active = nil
	if s.queued != nil {
		res.run.inbox.discard() // what the superseded turn left unread
		next := s.queued
		s.queued = nil
		s.start(next)
		return nil, false
	}
	if cause := res.run.cause; s.orphaned || s.stopping {
		return cancelled(cause), true
	}
	if s.handedOver && res.err == nil {
		return nil, true // the turn was over before the hand-over reached it
	}
	if s.closing {
		return s.endWith, true
	}
	if res.err != nil {
		return res.err, true
	}
	// Messages that reached the turn after its handler stopped reading
	// (a follow-up typed just as the turn finished) are handled as if they
	// arrived now, so a follow-up among them opens the next turn.
	for _, m := range res.run.inbox.drain() {
		s.handle(event{kind: evMessage, msg: m.msg, size: m.size})
	}
	if s.active != nil {
		return nil, false
	}
	s.linger = time.NewTimer(s.t.reg.cfg.Linger)
	return nil, false
}

func (s *supervisor) cancelAll(cause error) {
	if s.queued != nil {
		s.queued.inbox.discard()
	}
	s.queued = nil
	if s.active != nil {
		s.active.stop(cause)
	}
}

func (s *supervisor) stopLinger() {
	if s.linger != nil {
		s.linger.Stop()
		s.linger = nil
	}
}

// finish writes the end-of-stream frame and retires the transport.
func (s *supervisor) finish(end error) {
	s.stopLinger()
	s.t.mu.Lock()
	s.t.ended = true
	clear(s.t.pending)
	s.t.mu.Unlock()
	// Whatever is still buffered or unread is dropped with the stream.
	s.t.ledger.close()
	s.t.out.finish(frame.EndFrame(end))
	s.t.reg.retire(s.t)
}

// cancelled is the end-of-stream error of a run the server cancelled.
func cancelled(cause error) error {
	if errors.Is(cause, ErrRegistryClosed) || errors.Is(cause, ErrAbandoned) {
		return connect.NewError(connect.CodeUnavailable, cause)
	}
	return connect.NewError(connect.CodeCanceled, errors.New("run was cancelled"))
}

func messageKind(m *agentv1.AgentClientMessage) string {
	r := m.ProtoReflect()
	if f := r.WhichOneof(r.Descriptor().Oneofs().ByName("message")); f != nil {
		return string(f.Name())
	}
	return "none"
}

// opensFollowUp reports whether a stand-alone action that arrives between
// turns starts one. Cancels have nothing to act on then.
func opensFollowUp(a *agentv1.ConversationAction) bool {
	return a != nil && a.GetCancelAction() == nil && a.GetCancelSubagentAction() == nil
}
