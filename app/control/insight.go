package control

import (
	"context"
	"errors"
	"fmt"

	"keygate/domain/callrecord"
	"keygate/domain/llm"
	"keygate/domain/prefix"
	"keygate/ports"
)

// InsightState is the verdict of a cache insight.
type InsightState uint8

// Insight states.
const (
	// InsightUnknown: the prompt of the call or of its predecessor is not
	// stored (older than the prompt store keeps, or recorded elsewhere).
	InsightUnknown InsightState = iota + 1
	// InsightFirst: the first call of its conversation; nothing to reuse.
	InsightFirst
	InsightStable
	InsightBroken
)

// Insight says how much of a call's prompt repeated the previous call of
// the same conversation, which is what a provider's prompt cache can reuse.
type Insight struct {
	State          InsightState
	PreviousCallID string
	// Common is the number of leading messages both prompts share.
	Common           int
	PreviousMessages int
	Messages         int
	// Divergence locates the break; nil unless State is InsightBroken.
	Divergence *prefix.Divergence
	// PromptTokens estimates the call's prompt; PrefixTokens the part of it
	// shared with the previous call, which a provider cache can serve.
	PromptTokens, PrefixTokens int64
	// Explanation is one sentence for people.
	Explanation string
}

// insight compares the prompt of rec with the prompt of the call just
// before it in the same conversation, using the domain prefix rules.
func (c *Calls) insight(ctx context.Context, rec callrecord.Record) (Insight, error) {
	if rec.ConversationID == "" || c.o.Prompts == nil {
		return Insight{State: InsightUnknown, Explanation: "this call belongs to no conversation"}, nil
	}
	prev, err := c.o.Lister.CallRecords(ctx, ports.CallQuery{ConversationID: rec.ConversationID,
		After: &ports.CallCursor{Started: rec.Timing.RequestStarted, CallID: rec.CallID}, Limit: 1})
	if err != nil {
		return Insight{}, fmt.Errorf("find previous call of %s: %w", rec.CallID, err)
	}
	next, ok, err := c.prompt(ctx, rec.CallID)
	if err != nil || !ok {
		return Insight{State: InsightUnknown, Explanation: "the prompt of this call was not kept"}, err
	}
	if len(prev) == 0 {
		return Insight{State: InsightFirst, Messages: len(next.Messages), PromptTokens: llm.EstimateRequest(next),
			Explanation: "first call of the conversation: the provider had nothing cached yet"}, nil
	}
	in := Insight{PreviousCallID: prev[0].CallID, Messages: len(next.Messages), PromptTokens: llm.EstimateRequest(next)}
	previous, ok, err := c.prompt(ctx, prev[0].CallID)
	if err != nil || !ok {
		in.State, in.Explanation = InsightUnknown, "the prompt of the previous call was not kept"
		return in, err
	}
	return explain(in, previous, next), nil
}

func (c *Calls) prompt(ctx context.Context, callID string) (llm.Request, bool, error) {
	req, err := c.o.Prompts.Prompt(ctx, callID)
	if errors.Is(err, ports.ErrNotFound) {
		return llm.Request{}, false, nil
	}
	if err != nil {
		return llm.Request{}, false, fmt.Errorf("read prompt of %s: %w", callID, err)
	}
	return req, true, nil
}

// explain fills the verdict of comparing two prompts.
func explain(in Insight, previous, next llm.Request) Insight {
	r := prefix.IsStablePrefix(previous, next)
	in.Common, in.PreviousMessages = r.Common, len(previous.Messages)
	if r.Divergence == nil || r.Divergence.Index >= 0 {
		// Instructions and tools lead the prompt, so they are part of any
		// prefix that reaches the messages.
		shared := next
		shared.Messages = next.Messages[:min(r.Common, len(next.Messages))]
		in.PrefixTokens = llm.EstimateRequest(shared)
	}
	if r.Stable {
		in.State = InsightStable
		in.Explanation = fmt.Sprintf("stable: the prompt extends the previous call's %s (about %d of %d tokens), so the provider can reuse its cache",
			messages(r.Common), in.PrefixTokens, in.PromptTokens)
		return in
	}
	in.State, in.Divergence = InsightBroken, r.Divergence
	switch d := r.Divergence; {
	case d.Index < 0:
		in.Explanation = fmt.Sprintf("broken before any message: %s %s, so nothing of the previous prompt could be reused", d.Field, d.Cause)
	case d.Cause == prefix.CauseRemoved:
		in.Explanation = fmt.Sprintf("broken at message %d: it was %s (history shrank, for example by compaction or an edit), so only %s (about %d of %d tokens) could be reused",
			d.Index, d.Cause, messages(r.Common), in.PrefixTokens, in.PromptTokens)
	default:
		in.Explanation = fmt.Sprintf("broken at %s: the message %s since the previous call, so only %s (about %d of %d tokens) could be reused",
			d.Field, d.Cause, messages(r.Common), in.PrefixTokens, in.PromptTokens)
	}
	return in
}

func messages(n int) string {
	if n == 1 {
		return "1 message"
	}
	return fmt.Sprintf("%d messages", n)
}
