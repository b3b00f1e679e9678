package run

import (
	"context"
	"errors"
	"fmt"

	"go.uber.org/zap"

	"keygate/domain/llm"
	"keygate/domain/toolround"
)

// executeRound runs a tool round to its end (docs/engine.md, "Tool
// rounds"): calls with malformed
// arguments complete as tool errors at once, the others go to the client
// and their results are committed in completion order, each call together
// with its result. A break interrupts the pending calls. fresh says the
// round is new and must be stored first; a resumed round is stored
// already and only its pending calls run.
func (r *runner) executeRound(ctx context.Context, round toolround.Round, fresh bool) error {
	if fresh {
		r.rounds++
		if err := r.e.rounds.Start(ctx, r.p.RunID, r.cur.ID(), round); err != nil {
			return storeErr("start tool round", err)
		}
		if err := r.committed(ctx, Cause{Kind: CauseToolRoundStarted, RoundID: round.ID()}, 0, false); err != nil {
			return err
		}
		if err := r.storeAnchor(ctx); err != nil {
			return err
		}
		if r.rounds > r.e.limits.MaxToolRounds {
			return r.refuseRound(ctx, round)
		}
	}
	settled, committed := round.Settled(), len(round.Completed()) > 0
	for _, c := range round.Pending() {
		if c.ArgumentError == "" {
			continue
		}
		var err error
		if settled, err = r.commitResult(ctx, round.ID(), toolround.ArgumentErrorResult(c)); err != nil {
			return err
		}
		committed = true
	}
	if !settled {
		ev := ExecuteToolRound{RoundID: round.ID(), Calls: round.Dispatchable()}
		if a, ok := round.Plan().Assistant(); ok && !committed {
			ev.Lead = llm.Assistant{Text: a.Text, Thinking: a.Thinking, Replay: a.Replay}
		}
		r.emit(ctx, ev)
	}
	for !settled {
		select {
		case <-ctx.Done():
			return ctx.Err()
		case <-r.h.notify:
		}
		for _, c := range r.h.take() {
			var err error
			switch {
			case settled:
				r.collect([]command{c})
			case c.kind == cmdToolResult:
				settled, err = r.commitResult(ctx, round.ID(), c.result)
			case c.kind == cmdInsert:
				r.inserts = append(r.inserts, c.messages...)
			case c.kind == cmdBreak:
				r.breaks = append(r.breaks, c.messages...)
				err = r.interruptRound(ctx, round.ID(), c.detached)
				settled = true
			}
			if err != nil {
				return err
			}
		}
	}
	return r.appendRuntime(ctx, r.pendingMessages())
}

// commitResult commits one result and reports whether the round settled.
// Duplicates and results for calls the round does not hold are ignored.
func (r *runner) commitResult(ctx context.Context, roundID string, res llm.ToolResult) (bool, error) {
	c, err := r.e.rounds.Commit(ctx, r.p.RunID, roundID, res)
	var unknown *toolround.UnknownCallError
	switch {
	case errors.As(err, &unknown):
		r.log.Warn("tool result for an unknown call ignored", zap.String("round_id", roundID), zap.String("call_id", res.CallID))
		return false, nil
	case err != nil:
		return false, storeErr("commit tool result", err)
	case c.Duplicate:
		return c.Settled, nil
	}
	r.cur = c.Checkpoint
	r.doneCalls[res.CallID] = true
	cause := Cause{Kind: CauseToolResult, RoundID: roundID, CallID: res.CallID}
	return c.Settled, r.committed(ctx, cause, c.Round.Version(), c.Settled)
}

// interruptRound completes every pending call with its detached result or
// the interruption error, in one commit behind a barrier.
func (r *runner) interruptRound(ctx context.Context, roundID string, detached []llm.ToolResult) error {
	c, err := r.e.rounds.Interrupt(ctx, r.p.RunID, roundID, detached...)
	if err != nil {
		return storeErr("interrupt tool round", err)
	}
	if c.Duplicate {
		return nil
	}
	r.cur = c.Checkpoint
	for _, id := range c.Round.Completed() {
		r.doneCalls[id] = true
	}
	return r.committed(ctx, Cause{Kind: CauseToolResult, RoundID: roundID, Interrupted: true}, c.Round.Version(), true)
}

// refuseRound ends a run that exceeded its tool-round limit. The round's
// calls complete as tool errors, so history stays a valid provider
// history and a follow-up message can continue the work.
func (r *runner) refuseRound(ctx context.Context, round toolround.Round) error {
	msg := fmt.Sprintf("This run stopped after %d tool rounds, the configured limit. Send a message to continue.",
		r.e.limits.MaxToolRounds)
	var results []llm.ToolResult
	for _, c := range round.Pending() {
		results = append(results, llm.ToolResult{CallID: c.CallID, Name: c.Name, Content: "Not executed: " + msg, IsError: true})
	}
	if err := r.interruptRound(ctx, round.ID(), results); err != nil {
		return err
	}
	return &Failure{Category: CategoryLimit, Message: msg, Retryable: false,
		Err: fmt.Errorf("tool round limit of %d reached", r.e.limits.MaxToolRounds)}
}
