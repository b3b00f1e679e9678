package run

import (
	"context"
	"errors"
	"fmt"
	"time"

	"go.uber.org/zap"

	"keygate/domain/compaction"
	"keygate/domain/conversation"
	"keygate/domain/llm"
	"keygate/domain/modelcycle"
	"keygate/domain/projection"
	"keygate/domain/toolround"
	"keygate/ports"
)

// runner is the state of one run; only the run's goroutine touches it.
type runner struct {
	e *Engine
	p PreparedRun
	h *Handle
	// outerDone is the Done channel of the context given to Start: it
	// bounds event delivery. The run's own context (cancelled by Cancel,
	// preemption or that one) is passed down from run.
	outerDone <-chan struct{}
	log       *zap.Logger

	// anchorDue stores the context anchor of the last model cycle; it
	// runs once the cycle's answer is committed (storeAnchor).
	anchorDue func(context.Context) error

	cur conversation.Checkpoint
	// hist is the full message list of the checkpoint histOf, when known:
	// the transport's history and what this run appended to it since. A
	// turn then decodes its conversation once (the transport's load)
	// instead of at every step. Slices handed out are capped at their
	// length, so appending here never changes what a reader holds.
	hist   []conversation.Message
	histOf string
	// appended reports that this run appended initial messages.
	appended bool
	usage    llm.Usage
	rounds   int
	// overflowCompacted: the once-per-run compaction after an overflow
	// refusal was used.
	overflowCompacted bool
	// inserts and breaks are messages taken from the inbox and not yet
	// appended; detached are results a break supplied for pending calls.
	inserts, breaks []conversation.Message
	detached        []llm.ToolResult
	// doneCalls are call ids this run committed; a late duplicate result
	// for one of them is ignored wherever it arrives.
	doneCalls map[string]bool
	// partial is the output of a cycle stopped by a cancel or a break.
	partial *partialOutput
	// thinking is when the thinking block the current attempt shows began;
	// nil when none is open.
	thinking *time.Time
	// opened is what the claim wrote besides the run when the turn
	// started in one write (Engine.claimTurn): the initial messages'
	// append, taken by appendInitial, and the first model cycle's index,
	// taken by beginCall. nil when the run writes them itself.
	opened *ports.ClaimedTurn
	// openedCall: beginCall handed out opened's index.
	openedCall bool
}

type partialOutput struct {
	index int
	text  string
}

func (r *runner) run(ctx context.Context) {
	err := r.loop(ctx)
	o := r.outcome(ctx, err)
	if o.Status == Cancelled && r.partial != nil {
		if err := r.persistPartial(ctx, true); err != nil {
			r.log.Warn("interrupted output not stored", zap.Error(err))
		}
	}
	r.finish(ctx, o)
	r.h.end(o)
	r.e.unregister(r.h)
	r.emitFinal(Ended{Outcome: o})
	close(r.h.events)
	close(r.h.done)
	r.h.cancel(nil)
}

// outcome maps the loop's error to the run's outcome.
func (r *runner) outcome(ctx context.Context, err error) Outcome {
	o := Outcome{Usage: r.usage}
	var f *Failure
	var c *errCancelled
	switch {
	case err == nil:
		o.Status = Completed
	case errors.As(context.Cause(ctx), &c):
		o.Status, o.Reason = Cancelled, c.reason
	case ctx.Err() != nil:
		o.Status, o.Reason = Cancelled, "context cancelled"
	case errors.Is(err, ports.ErrNotOwner):
		o.Status, o.Reason = Cancelled, ReasonPreempted
	case errors.As(err, &f):
		o.Status, o.Failure = Failed, f
	default:
		o.Status, o.Failure = Failed, failure(CategoryStore, true, err)
	}
	if o.Status == Failed {
		r.log.Warn("run failed", zap.String("category", string(o.Failure.Category)), zap.Error(o.Failure.Err))
	}
	return o
}

// finish stores the run's end. A run that was preempted cannot overwrite
// its cancelled status; the store's refusal is expected then.
func (r *runner) finish(ctx context.Context, o Outcome) {
	end := ports.RunEnd{Usage: o.Usage}
	switch o.Status {
	case Completed:
		end.Status = ports.RunCompleted
	case Cancelled:
		end.Status = ports.RunCancelled
	default:
		end.Status = ports.RunFailed
		end.FailureCategory, end.FailureSummary = string(o.Failure.Category), o.Failure.Message
	}
	err := r.e.runs.Finish(context.WithoutCancel(ctx), r.p.RunID, end)
	if err != nil && !errors.Is(err, ports.ErrNotOwner) {
		r.log.Error("store run end", zap.Error(err))
	}
}

// loop is the main sequence (docs/engine.md, "The main sequence").
func (r *runner) loop(ctx context.Context) error {
	if err := r.appendInitial(ctx); err != nil {
		return err
	}
	if r.p.Action.Kind == ActionRecord {
		return r.committed(ctx, Cause{Kind: CauseFinalTurn}, 0, true)
	}
	if r.p.Action.Kind == ActionResume {
		done, err := r.resume(ctx)
		if err != nil || done {
			return err
		}
	}
	for {
		if err := r.storeAnchor(ctx); err != nil {
			return err
		}
		msgs, err := r.load(ctx)
		if err != nil {
			return err
		}
		if r.p.Action.Kind == ActionCompact {
			return r.manualCompact(ctx, msgs)
		}
		req, err := r.request(msgs)
		if err != nil {
			return err
		}
		compacted, err := r.preflight(ctx, msgs, req)
		if err != nil {
			return err
		}
		if compacted {
			continue
		}
		res, err := r.modelCycle(ctx, req, true)
		switch {
		case errors.Is(err, errInterrupted):
			if err := r.afterBreak(ctx); err != nil {
				return err
			}
			continue
		case err != nil && modelcycle.IsContextOverflow(err) && !r.overflowCompacted:
			r.overflowCompacted = true
			if err := r.autoCompact(ctx, msgs, err); err != nil {
				return err
			}
			continue
		case err != nil && modelcycle.IsContextOverflow(err):
			return &Failure{Category: CategoryProvider, Message: providerMessage(err, "", r.p.Model.Endpoint.APIKey), Err: err}
		case err != nil:
			return err
		}
		// The anchor waits for the answer's commit: until that commit a
		// replica that dies has the answer sampled again by the resume,
		// so nothing else is written between the stream's end and it.
		r.anchorDue = func(ctx context.Context) error { return r.anchor(ctx, res.usage, req) }
		if len(res.Assistant.Calls) == 0 {
			done, err := r.finalAnswer(ctx, res)
			if err != nil || done {
				return err
			}
			continue
		}
		round, err := toolround.New(conversation.ToolRoundID(r.p.RunID, res.index), res.Assistant)
		if err != nil {
			return failure(CategoryProtocol, true, err)
		}
		if err := r.executeRound(ctx, round, true); err != nil {
			return err
		}
	}
}

// beginCall begins the run's next model cycle and returns its index: the
// one the claim began when the turn started in one write, else the
// store's next (ports.RunStore.BeginProviderCall).
func (r *runner) beginCall(ctx context.Context) (int, error) {
	if r.opened != nil && !r.openedCall {
		r.openedCall = true
		return r.opened.CallIndex, nil
	}
	idx, err := r.e.runs.BeginProviderCall(ctx, r.p.RunID)
	if err != nil {
		return 0, storeErr("begin provider call", err)
	}
	return idx, nil
}

// load returns the messages of the run's current checkpoint.
func (r *runner) load(ctx context.Context) ([]conversation.Message, error) {
	if msgs, ok := r.history(); ok {
		return msgs, nil
	}
	_, msgs, err := r.e.convs.Load(ctx, r.cur.ID())
	if err != nil {
		return nil, fmt.Errorf("load checkpoint: %w", err)
	}
	r.hist, r.histOf = msgs, r.cur.ID()
	return msgs[:len(msgs):len(msgs)], nil
}

// history returns the current checkpoint's messages when they are known
// without a load.
func (r *runner) history() ([]conversation.Message, bool) {
	if r.histOf == "" || r.histOf != r.cur.ID() {
		return nil, false
	}
	return r.hist[:len(r.hist):len(r.hist)], true
}

// appendedTo records the list of d's checkpoint after msgs were applied
// to base: base's list followed by msgs when base's list is known and the
// store appended every one of them (the checkpoint's length says so; a
// message base held already is not appended again). Otherwise the list
// is unknown and the next load reads it.
func (r *runner) appendedTo(base conversation.Checkpoint, msgs []conversation.Message, d conversation.Decision) {
	if r.histOf != base.ID() || d.Checkpoint.Len() != base.Len()+len(msgs) {
		r.histOf = ""
		return
	}
	r.hist, r.histOf = append(r.hist, msgs...), d.Checkpoint.ID()
}

// request projects msgs into the model request of the next cycle.
func (r *runner) request(msgs []conversation.Message) (llm.Request, error) {
	req, err := projection.Request(msgs, r.prompt(), r.p.Model.Settings)
	if err != nil {
		return llm.Request{}, failure(CategoryProtocol, false, err)
	}
	return req, nil
}

// prompt is the instructions and tools of the next model call: the
// prepared prompt, or the one a mode switch set since.
func (r *runner) prompt() projection.Prompt {
	if p, ok := r.h.switchedPrompt(); ok {
		return p
	}
	return r.p.Prompt
}

// finalAnswer appends a cycle's answer without tool calls and then either
// appends messages that arrived meanwhile (done false: the model runs
// again) or finalizes the turn (done true).
func (r *runner) finalAnswer(ctx context.Context, res cycleResult) (bool, error) {
	a := res.Assistant
	msg, err := conversation.NewMessage(conversation.MessageSpec{
		ID: conversation.AssistantID(r.p.RunID, res.index), Role: llm.RoleAssistant,
		Origin: conversation.OriginAssistant, Assistant: &a,
	})
	if err != nil {
		return false, failure(CategoryProtocol, true, err)
	}
	base := r.cur
	d, err := r.apply(ctx, conversation.AppendTo(base, msg))
	if err != nil {
		return false, err
	}
	r.appendedTo(base, []conversation.Message{msg}, d)
	if err := r.storeAnchor(ctx); err != nil {
		return false, err
	}
	r.collect(r.h.take())
	pending := r.pendingMessages()
	if len(pending) == 0 {
		r.collect(r.h.finalize())
		pending = r.pendingMessages()
	}
	if len(pending) > 0 {
		return false, r.appendRuntime(ctx, pending)
	}
	return true, r.committed(ctx, Cause{Kind: CauseFinalTurn}, 0, true)
}

// pendingMessages returns and clears the queued insertions and break
// messages, insertions first.
func (r *runner) pendingMessages() []conversation.Message {
	out := append(r.inserts, r.breaks...)
	r.inserts, r.breaks, r.detached = nil, nil, nil
	return out
}

// collect files commands taken outside a model cycle or tool round: a
// message is queued, a break counts as an insertion (there is nothing to
// interrupt), a tool result can only be a late duplicate and is dropped.
func (r *runner) collect(cmds []command) {
	for _, c := range cmds {
		switch c.kind {
		case cmdInsert, cmdBreak:
			r.inserts = append(r.inserts, c.messages...)
		default:
			r.log.Debug("tool result outside a tool round ignored", zap.String("call_id", c.result.CallID))
		}
	}
}

// storeAnchor stores the anchor of the last model cycle, if not stored
// yet.
func (r *runner) storeAnchor(ctx context.Context) error {
	due := r.anchorDue
	if due == nil {
		return nil
	}
	r.anchorDue = nil
	return due(ctx)
}

// anchor records the authoritative context size a successful cycle
// reported.
func (r *runner) anchor(ctx context.Context, u *llm.Usage, req llm.Request) error {
	a, ok := usageAnchor(u, req)
	if !ok {
		return nil
	}
	if err := r.e.anchors.PutContextAnchor(ctx, r.p.ConversationID, a); err != nil {
		return fmt.Errorf("store context anchor: %w", err)
	}
	return nil
}

func (r *runner) storedAnchor(ctx context.Context) (*compaction.Anchor, error) {
	a, err := r.e.anchors.ContextAnchor(ctx, r.p.ConversationID)
	if errors.Is(err, ports.ErrNotFound) {
		return nil, nil
	}
	if err != nil {
		return nil, fmt.Errorf("read context anchor: %w", err)
	}
	return &a, nil
}
