package run

import (
	"context"
	"errors"
	"fmt"
	"time"

	"go.uber.org/zap"

	"keygate/domain/budget"
	"keygate/domain/conversation"
	"keygate/domain/llm"
	"keygate/domain/modelcycle"
	"keygate/domain/secretscan"
	"keygate/domain/team"
	"keygate/ports"
)

// errInterrupted is the cause of a cycle stopped by BreakMessages.
var errInterrupted = errors.New("model cycle interrupted by a newer message")

// cycleResult is a finished model cycle.
type cycleResult struct {
	modelcycle.Result
	// index is the cycle's provider call index.
	index int
	usage *llm.Usage
}

// modelCycle runs one model cycle with the run-level retry policy
// (docs/engine.md, "Retries"): each retry sends the identical request from the same
// checkpoint. A failed attempt wrote nothing, so a retry replays nothing:
// tool rounds start and checkpoints move only after a cycle succeeded.
// While it retries, the user is told why and how long it waits
// (ModelStatus). With listen set, commands are watched: a break returns
// errInterrupted.
func (r *runner) modelCycle(ctx context.Context, req llm.Request, listen bool) (cycleResult, error) {
	idx, err := r.beginCall(ctx)
	if err != nil {
		return cycleResult{}, err
	}
	if err := r.hydrate(ctx, &req); err != nil {
		return cycleResult{}, err
	}
	st := newRetryStatus(r)
	defer st.end()
	for retry := 0; ; retry++ {
		callID := conversation.ProviderCallID(r.p.RunID, idx, retry)
		res, err := r.attempt(ctx, req, idx, callID, listen, st)
		if res.Usage != nil {
			r.usage = r.usage.Add(*res.Usage)
		}
		if err == nil {
			st.end()
			return cycleResult{Result: res, index: idx, usage: res.Usage}, nil
		}
		if errors.Is(err, errInterrupted) || ctx.Err() != nil {
			st.end()
			r.partial = &partialOutput{index: idx, text: res.Assistant.Text}
			r.emitFinal(CycleInterrupted{})
			if ctx.Err() != nil {
				return cycleResult{}, ctx.Err()
			}
			return cycleResult{}, err
		}
		var f *Failure
		if errors.As(err, &f) {
			return cycleResult{}, err
		}
		wait, retrying, refused := r.nextWait(retry+1, err, st.spent)
		r.log.Info("model attempt failed", zap.String("call_id", callID), zap.Bool("retrying", retrying),
			zap.Duration("retry_in", wait), zap.Error(err))
		r.emit(ctx, ModelAttemptFailed{Attempt: retry + 1, Message: err.Error(), Retrying: retrying, Delay: wait})
		if !retrying {
			st.end()
			return cycleResult{}, cycleFailure(err, st.tried(retry+1, refused), r.p.Model.Endpoint.APIKey)
		}
		r.closeThinking(ctx)
		st.reason = retryReason(err, r.p.Model.Endpoint.APIKey)
		st.show(ctx, StatusRetryScheduled, st.attempt, wait)
		if err := r.retryWait(ctx, listen, wait, st); err != nil {
			st.end()
			if errors.Is(err, errInterrupted) {
				r.emitFinal(CycleInterrupted{})
			}
			return cycleResult{}, err
		}
		st.spent += wait
		st.begin(retry + 2)
		st.show(ctx, StatusRetrying, st.attempt, 0)
	}
}

// cycleFailure classifies a failure that ends the run; tried says how the
// cycle retried, and secrets are redacted from the text the user reads.
func cycleFailure(err error, tried string, secrets ...string) error {
	if modelcycle.IsContextOverflow(err) {
		return err
	}
	// A content filter blocks the same request again: retrying cannot help.
	if modelcycle.IsContentFiltered(err) {
		return &Failure{Category: CategoryProvider, Message: filterMessage(err), Err: err}
	}
	if errors.Is(err, modelcycle.ErrGrammar) {
		return &Failure{Category: CategoryProtocol, Message: providerMessage(err, tried, secrets...), Retryable: true, Err: err}
	}
	// A budget or rate limit refused the call before the provider saw it:
	// its message is written for the user, and retrying at once cannot help.
	var exceeded *budget.ExceededError
	if errors.As(err, &exceeded) || errors.Is(err, team.ErrNotAllowed) {
		return failure(CategoryLimit, false, err)
	}
	// The secret guard refused the request: the same history is refused
	// again, and its message (the kinds of secret, no value) is the user's.
	var blocked *secretscan.BlockedError
	if errors.As(err, &blocked) {
		return failure(CategoryLimit, false, err)
	}
	return &Failure{Category: CategoryProvider, Message: providerMessage(err, tried, secrets...), Retryable: true, Err: err}
}

// retryWait sleeps d on the engine's clock before the next attempt, telling
// the user every StatusInterval that it still waits; a cancel or a break
// ends the wait. One timer is pending at a time.
func (r *runner) retryWait(ctx context.Context, listen bool, d time.Duration, st *retryStatus) error {
	deadline := r.e.clock.Now().Add(d)
	for {
		left := deadline.Sub(r.e.clock.Now())
		if left <= 0 {
			return nil
		}
		timer := r.e.clock.NewTimer(min(left, r.e.limits.StatusInterval))
		err := r.sleep(ctx, timer, listen)
		timer.Stop()
		if err != nil {
			return err
		}
		if left := deadline.Sub(r.e.clock.Now()); left > 0 {
			st.show(ctx, StatusStillWaiting, st.attempt+1, left)
		}
	}
}

// sleep waits for timer; a cancel or a break ends the wait early.
func (r *runner) sleep(ctx context.Context, timer ports.Timer, listen bool) error {
	for {
		var notify <-chan struct{}
		if listen {
			notify = r.h.notify
		}
		select {
		case <-timer.C():
			return nil
		case <-ctx.Done():
			return ctx.Err()
		case <-notify:
			brk, err := r.modelCommands()
			if err != nil {
				return err
			}
			if brk {
				return errInterrupted
			}
		}
	}
}

// modelCommands handles the commands that arrived while the model runs:
// insertions queue, a break asks to interrupt, a tool result for a call
// this run already committed is a late duplicate; any other tool result is
// a client protocol failure.
func (r *runner) modelCommands() (bool, error) {
	brk := false
	for _, c := range r.h.take() {
		switch c.kind {
		case cmdInsert:
			r.inserts = append(r.inserts, c.messages...)
		case cmdBreak:
			r.breaks = append(r.breaks, c.messages...)
			r.detached = append(r.detached, c.detached...)
			brk = true
		case cmdToolResult:
			if r.doneCalls[c.result.CallID] {
				continue
			}
			return false, failure(CategoryClient, false,
				fmt.Errorf("received a tool result while the model was running (call %q)", c.result.CallID))
		}
	}
	return brk, nil
}

type pumped struct {
	ev  llm.Event
	end bool
	err error
}

// attempt makes one provider attempt and consumes its stream through the
// model-event grammar. It returns the (possibly partial) result in every
// case, so usage and the visible text of a stopped attempt are kept.
//
// While st has statuses open (an earlier attempt of the cycle failed), the
// user is told every StatusInterval that this attempt has not answered
// yet, and the statuses close at its first event. st is nil for a call
// that is not retried (the automatic summary).
func (r *runner) attempt(ctx context.Context, req llm.Request, idx int, callID string, listen bool, st *retryStatus) (modelcycle.Result, error) {
	callCtx, cancel := context.WithCancelCause(ctx)
	defer cancel(nil)
	call := ports.ModelCall{
		CallID: callID, RunID: r.p.RunID, ConversationID: r.p.ConversationID,
		ProviderCallIndex: idx, Endpoint: r.p.Model.Endpoint, Request: req,
	}
	// A few events of slack let the provider's reader run ahead of the
	// engine; the buffer is allocated whole for every attempt.
	events := make(chan pumped, 16)
	go pump(callCtx, r.e.provider, call, events)
	cyc := modelcycle.New()
	v := visible{r: r, callID: callID, on: listen, calls: map[int]string{}}
	stop := func(cause error) (modelcycle.Result, error) {
		cancel(cause)
		for p := range events {
			if p.end {
				break
			}
		}
		res, _ := cyc.End()
		v.failCalls()
		return res, cause
	}
	r.thinking = nil
	var tick ports.Timer
	var ticks <-chan time.Time
	if st != nil && st.open {
		tick = r.e.clock.NewTimer(r.e.limits.StatusInterval)
		ticks = tick.C()
	}
	defer func() {
		if tick != nil {
			tick.Stop()
		}
	}()
	for {
		var notify <-chan struct{}
		if listen {
			notify = r.h.notify
		}
		select {
		case <-ticks:
			st.show(ctx, StatusStillWaiting, st.attempt, 0)
			tick = r.e.clock.NewTimer(r.e.limits.StatusInterval)
			ticks = tick.C()
		case p := <-events:
			if ticks != nil && !p.end {
				tick.Stop()
				tick, ticks = nil, nil
				st.end()
			}
			if p.end {
				res, err := cyc.End()
				if p.err != nil {
					err = p.err
				}
				if err != nil {
					v.failCalls()
					if cause := context.Cause(callCtx); cause != nil && !errors.Is(cause, context.Canceled) {
						err = cause
					}
				}
				return res, err
			}
			if err := cyc.Apply(p.ev); err != nil {
				return stop(err)
			}
			v.forward(ctx, p.ev)
		case <-notify:
			brk, err := r.modelCommands()
			switch {
			case err != nil:
				return stop(err)
			case brk:
				return stop(errInterrupted)
			}
		case <-ctx.Done():
			return stop(context.Cause(ctx))
		}
	}
}

// pump makes the provider call and reads its stream on its own goroutine,
// so the engine watches commands while it waits for headers or events. It
// always ends with one end value and closes the stream.
func pump(ctx context.Context, p ports.ModelProvider, call ports.ModelCall, out chan<- pumped) {
	defer close(out)
	s, err := p.Stream(ctx, call)
	if err != nil {
		out <- pumped{end: true, err: err}
		return
	}
	for s.Next() {
		select {
		case out <- pumped{ev: s.Event()}:
		case <-ctx.Done():
			out <- pumped{end: true, err: ctx.Err()}
			_ = s.Close()
			return
		}
	}
	err = s.Err()
	_ = s.Close()
	out <- pumped{end: true, err: err}
}

// visible turns model events into run events for the transport.
type visible struct {
	r          *runner
	callID     string
	on         bool
	calls      map[int]string
	order      []int
	thinkStart time.Time
}

func (v *visible) forward(ctx context.Context, e llm.Event) {
	r := v.r
	switch e.Kind {
	case llm.EventUsage:
		if e.Usage != nil {
			r.emit(ctx, Usage{Usage: *e.Usage})
		}
		return
	}
	if !v.on {
		return
	}
	switch e.Kind {
	case llm.EventTextDelta:
		r.emit(ctx, TextDelta{Text: e.Text})
	case llm.EventThinkingStart:
		v.thinkStart = r.e.clock.Now()
		r.thinking = &v.thinkStart
	case llm.EventThinkingDelta:
		r.emit(ctx, ThinkingDelta{Text: e.Text})
	case llm.EventThinkingEnd:
		r.thinking = nil
		r.emit(ctx, ThinkingEnd{Duration: r.e.clock.Now().Sub(v.thinkStart)})
	case llm.EventToolCallStart:
		v.calls[e.Index] = e.CallID
		v.order = append(v.order, e.Index)
		r.emit(ctx, ToolCallStart{Index: e.Index, CallID: e.CallID, Name: modelcycle.NormalizeToolName(e.Name), ModelCallID: v.callID})
	case llm.EventToolCallArgumentsDelta:
		r.emit(ctx, ToolCallArgsDelta{Index: e.Index, CallID: v.calls[e.Index], Text: e.Text})
	case llm.EventToolCallEnd:
		r.emit(ctx, ToolCallEnd{Index: e.Index, CallID: v.calls[e.Index]})
	}
}

// failCalls closes the tool cards of an attempt that will not run them.
func (v *visible) failCalls() {
	for _, idx := range v.order {
		v.r.emitFinal(ToolCallFailed{Index: idx, CallID: v.calls[idx]})
	}
	v.calls, v.order = map[int]string{}, nil
}

// closeThinking ends the thinking block a failed attempt left open, so
// that what the user reads next (a retry's status) is not taken for the
// model's thinking.
func (r *runner) closeThinking(ctx context.Context) {
	if r.thinking == nil {
		return
	}
	r.emit(ctx, ThinkingEnd{Duration: r.e.clock.Now().Sub(*r.thinking)})
	r.thinking = nil
}
