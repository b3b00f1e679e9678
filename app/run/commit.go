package run

import (
	"context"
	"errors"
	"fmt"
	"strings"

	"go.uber.org/zap"

	"keygate/domain/conversation"
	"keygate/domain/llm"
	"keygate/ports"
)

// interruptedSuffix marks the id of an interrupted cycle's stored output:
// "<run>:assistant:<index>:interrupted". A resumed run continues after it
// instead of treating it as a finished answer.
const interruptedSuffix = ":interrupted"

func isTransientID(id string) bool {
	return id == conversation.ContinueID || id == conversation.CompactionInstructionID
}

// apply writes one change on behalf of the run and moves the run's
// checkpoint to the result.
func (r *runner) apply(ctx context.Context, ch conversation.Change) (conversation.Decision, error) {
	d, err := r.e.convs.Apply(ctx, ports.Write{Change: ch, RunID: r.p.RunID})
	if err != nil {
		return conversation.Decision{}, storeErr("append messages", err)
	}
	r.cur = d.Checkpoint
	return d, nil
}

// storeErr wraps a store failure; ownership loss and message conflicts keep
// their sentinels, everything else becomes a store failure.
func storeErr(what string, err error) error {
	switch {
	case errors.Is(err, ports.ErrNotOwner), errors.Is(err, context.Canceled), errors.Is(err, context.DeadlineExceeded):
		return fmt.Errorf("%s: %w", what, err)
	case errors.Is(err, conversation.ErrMessageConflict), errors.Is(err, conversation.ErrInvalidMessage):
		return failure(CategoryClient, false, fmt.Errorf("%s: %w", what, err))
	default:
		return failure(CategoryStore, true, fmt.Errorf("%s: %w", what, err))
	}
}

// committed announces the run's checkpoint and, with a barrier, waits for
// the transport to publish it.
func (r *runner) committed(ctx context.Context, cause Cause, version int, barrier bool) error {
	ev := MessagesCommitted{CheckpointID: r.cur.ID(), RoundVersion: version, Cause: cause}
	if msgs, ok := r.history(); ok {
		ev.Messages = msgs
	}
	if barrier {
		ev.Barrier = newBarrier()
	}
	r.emit(ctx, ev)
	if !barrier {
		return nil
	}
	select {
	case <-ev.Barrier.Done():
		return nil
	case <-ctx.Done():
		return ctx.Err()
	}
}

// appendInitial appends the turn's initial messages once each, branching
// when the run's base is not the head (docs/engine.md, "The main
// sequence", step 1).
func (r *runner) appendInitial(ctx context.Context) error {
	if t := r.opened; t != nil {
		// The claim appended them (Engine.claimTurn).
		r.cur = t.Applied.Checkpoint
		return r.initialApplied(ctx, t.Base, t.Applied)
	}
	head, err := r.e.convs.Head(ctx, r.p.ConversationID)
	if err != nil {
		return storeErr("read head", err)
	}
	r.cur = head
	base := head
	if id := r.p.BaseCheckpointID; id != "" && id != head.ID() {
		if base, _, err = r.e.convs.Load(ctx, id); err != nil {
			return storeErr("load base checkpoint", err)
		}
	}
	if r.p.HistoryOf != "" && r.p.HistoryOf == base.ID() {
		r.hist, r.histOf = r.p.History[:len(r.p.History):len(r.p.History)], base.ID()
	}
	if len(r.p.InitialMessages) == 0 {
		if base.ID() != head.ID() {
			return failure(CategoryClient, false, errors.New("a run on an older checkpoint needs an initial message"))
		}
		return nil
	}
	ch := conversation.AppendTo(head, r.p.InitialMessages...)
	if base.ID() != head.ID() {
		ch = conversation.BranchFrom(head.ID(), base, r.p.InitialMessages...)
	}
	d, err := r.apply(ctx, ch)
	if err != nil {
		return err
	}
	return r.initialApplied(ctx, base, d)
}

// initialApplied records the initial messages applied to base with d and, when
// they changed the conversation, announces them behind a barrier.
func (r *runner) initialApplied(ctx context.Context, base conversation.Checkpoint, d conversation.Decision) error {
	if r.p.HistoryOf != "" && r.p.HistoryOf == base.ID() && r.histOf == "" {
		r.hist, r.histOf = r.p.History[:len(r.p.History):len(r.p.History)], base.ID()
	}
	r.appendedTo(base, r.p.InitialMessages, d)
	if d.Outcome == conversation.Unchanged {
		return nil
	}
	r.appended = true
	return r.committed(ctx, Cause{Kind: CauseInitialMessages}, 0, true)
}

// appendRuntime appends messages one at a time, each announced as a
// runtime event behind a barrier.
func (r *runner) appendRuntime(ctx context.Context, msgs []conversation.Message) error {
	for _, m := range msgs {
		base := r.cur
		d, err := r.apply(ctx, conversation.AppendTo(base, m))
		if err != nil {
			return err
		}
		r.appendedTo(base, []conversation.Message{m}, d)
		if d.Outcome == conversation.Unchanged {
			continue
		}
		event := m.RuntimeEventID()
		if event == "" {
			event = m.ID()
		}
		if err := r.committed(ctx, Cause{Kind: CauseRuntimeEvent, EventID: event}, 0, true); err != nil {
			return err
		}
	}
	return nil
}

// afterBreak finishes an interruption of a model cycle: the partial output
// is kept, then the queued insertions and the break messages are appended.
func (r *runner) afterBreak(ctx context.Context) error {
	if r.partial != nil {
		if err := r.persistPartial(ctx, false); err != nil {
			return err
		}
	}
	return r.appendRuntime(ctx, r.pendingMessages())
}

// persistPartial stores the visible text of an interrupted cycle so the
// next turn sees what the user saw. Its id is deterministic, so storing it
// again is a no-op. Tool calls are never stored without results, so only
// text is kept. ctx is the run's; at the run's end (final) the text is
// stored even after a cancel, as a best effort.
func (r *runner) persistPartial(ctx context.Context, final bool) error {
	p := r.partial
	r.partial = nil
	if strings.TrimSpace(p.text) == "" {
		return nil
	}
	msg, err := conversation.NewMessage(conversation.MessageSpec{
		ID:   conversation.AssistantID(r.p.RunID, p.index) + interruptedSuffix,
		Role: llm.RoleAssistant, Origin: conversation.OriginAssistant,
		Assistant: &llm.Assistant{Text: p.text},
	})
	if err != nil {
		return failure(CategoryProtocol, false, err)
	}
	store := ctx
	if final {
		store = context.WithoutCancel(ctx)
	}
	if _, err := r.apply(store, conversation.AppendTo(r.cur, msg)); err != nil {
		if final && ctx.Err() != nil {
			// Best effort after a cancel: a preempted run may not write.
			r.log.Info("interrupted output not stored", zap.Error(err))
			return nil
		}
		return err
	}
	r.emitFinal(MessagesCommitted{CheckpointID: r.cur.ID(), Cause: Cause{Kind: CauseInterruptedOutput}})
	return nil
}

// emit sends an event, waiting for buffer space; a cancelled run drops it.
func (r *runner) emit(ctx context.Context, ev Event) {
	select {
	case r.h.events <- ev:
		return
	default:
	}
	select {
	case r.h.events <- ev:
	case <-ctx.Done():
	case <-r.outerDone:
	}
}

// emitFinal sends an event that must arrive even after a cancel: the
// interruption, the stored partial output and the end.
func (r *runner) emitFinal(ev Event) {
	select {
	case r.h.events <- ev:
	case <-r.outerDone:
	}
}
