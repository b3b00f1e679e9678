package run

import (
	"context"
	"errors"
	"fmt"
	"strings"

	"keygate/domain/compaction"
	"keygate/domain/conversation"
	"keygate/domain/llm"
	"keygate/domain/projection"
)

// errCompactionTimeout is the cause of a summary call that ran past
// Limits.CompactionTimeout.
var errCompactionTimeout = errors.New("automatic compaction timed out")

// preflight estimates the next request (the anchor's authoritative tokens
// plus an estimate of newer messages; docs/engine.md, "Context anchors")
// and compacts first when it is
// over the budget. An oversized input with nothing to summarise fails
// before any provider call.
func (r *runner) preflight(ctx context.Context, msgs []conversation.Message, req llm.Request) (bool, error) {
	window := r.p.Model.ContextWindow
	if window <= 0 {
		return false, nil
	}
	anchor, err := r.storedAnchor(ctx)
	if err != nil {
		return false, err
	}
	estimate := compaction.Estimate(req, anchor)
	need, err := compaction.Preflight(estimate, window, compaction.Partition(msgs, r.initialIDs()))
	if err != nil {
		return false, failure(CategoryProtocol, false, err)
	}
	if !need {
		return false, nil
	}
	r.emit(ctx, UsageSnapshot{Tokens: estimate})
	return true, r.autoCompact(ctx, msgs, nil)
}

func (r *runner) initialIDs() []string {
	ids := make([]string, len(r.p.InitialMessages))
	for i, m := range r.p.InitialMessages {
		ids[i] = m.ID()
	}
	return ids
}

// autoCompact replaces the history by [latest request context, summary,
// current input] (docs/engine.md, "Compaction"). The summary call has no
// tools, no retries and a
// deadline; when it fails, times out or answers with tool calls or
// nothing, the deterministic fallback summary is used. cause is the
// overflow refusal that forced it, if any: with nothing to summarise that
// refusal ends the run.
func (r *runner) autoCompact(ctx context.Context, msgs []conversation.Message, cause error) error {
	split := compaction.Partition(msgs, r.initialIDs())
	if len(split.Compactable) == 0 {
		if cause != nil {
			return failure(CategoryProvider, false, cause)
		}
		return failure(CategoryProtocol, false, compaction.ErrIrreducible)
	}
	r.emit(ctx, CompactionStarted{})
	window := r.p.Model.ContextWindow
	req, err := compaction.AutomaticRequest(split.Compactable, r.prompt(), r.p.Model.Settings, window)
	if err != nil {
		return failure(CategoryProtocol, false, err)
	}
	text, idx, err := r.summarize(ctx, req)
	if err != nil {
		return err
	}
	fallback := text == ""
	if fallback {
		history, err := projection.History(split.Compactable)
		if err != nil {
			return failure(CategoryProtocol, false, err)
		}
		text = compaction.FallbackSummary(history)
	}
	summary, err := compaction.SummaryMessage(conversation.AutoSummaryID(r.p.RunID, idx), text)
	if err != nil {
		return failure(CategoryProtocol, false, err)
	}
	layout := compaction.Automatic(split, summary)
	next, err := projection.Request(layout, r.prompt(), r.p.Model.Settings)
	if err != nil {
		return failure(CategoryProtocol, false, err)
	}
	if err := compaction.Fits(llm.EstimateRequest(next), window); err != nil {
		return failure(CategoryProtocol, false, err)
	}
	if err := r.replace(ctx, layout, text); err != nil {
		return err
	}
	r.emit(ctx, CompactionCompleted{Fallback: fallback})
	r.emit(ctx, UsageSnapshot{Tokens: 0})
	return nil
}

// summarize makes the summary call of an automatic compaction under the
// compaction deadline and returns its text, "" when the fallback applies.
func (r *runner) summarize(ctx context.Context, req llm.Request) (string, int, error) {
	idx, err := r.beginCall(ctx)
	if err != nil {
		return "", 0, err
	}
	callCtx, cancel := context.WithCancelCause(ctx)
	defer cancel(nil)
	timer := r.e.clock.NewTimer(r.e.limits.CompactionTimeout)
	defer timer.Stop()
	go func() {
		select {
		case <-timer.C():
			cancel(errCompactionTimeout)
		case <-callCtx.Done():
		}
	}()
	res, err := r.attempt(callCtx, req, idx, conversation.ProviderCallID(r.p.RunID, idx, 0), false, nil)
	if res.Usage != nil {
		r.usage = r.usage.Add(*res.Usage)
	}
	if ctx.Err() != nil {
		return "", idx, ctx.Err()
	}
	if err != nil || len(res.Assistant.Calls) > 0 {
		return "", idx, nil
	}
	return strings.TrimSpace(res.Assistant.Text), idx, nil
}

// manualCompact is the Compact action (/summarize): the whole history is
// summarised with the run's prompt and replaced by the summary alone. A
// summary that calls tools or is empty fails the run.
func (r *runner) manualCompact(ctx context.Context, msgs []conversation.Message) error {
	req, err := compaction.ManualRequest(msgs, r.p.Prompt, r.p.Model.Settings)
	if err != nil {
		return failure(CategoryProtocol, false, err)
	}
	res, err := r.modelCycle(ctx, req, false)
	if err != nil {
		return err
	}
	text := strings.TrimSpace(res.Assistant.Text)
	if len(res.Assistant.Calls) > 0 || text == "" {
		return failure(CategoryProvider, true, errors.New("the summary call returned no summary"))
	}
	summary, err := compaction.SummaryMessage(conversation.ManualSummaryID(r.p.RunID), text)
	if err != nil {
		return failure(CategoryProtocol, false, err)
	}
	return r.replace(ctx, compaction.Manual(summary), text)
}

// replace writes a compacted checkpoint, resets the context anchor and
// announces the compaction behind a barrier.
func (r *runner) replace(ctx context.Context, layout []conversation.Message, summary string) error {
	root, err := conversation.Root(r.p.ConversationID)
	if err != nil {
		return failure(CategoryProtocol, false, err)
	}
	if _, err := r.apply(ctx, conversation.ReplaceWith(r.cur.ID(), root, layout...)); err != nil {
		return err
	}
	if err := r.e.anchors.PutContextAnchor(ctx, r.p.ConversationID, compaction.Anchor{}); err != nil {
		return fmt.Errorf("reset context anchor: %w", err)
	}
	return r.committed(ctx, Cause{Kind: CauseCompaction, Summary: summary}, 0, true)
}
