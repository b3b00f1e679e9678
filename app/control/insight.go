package control

import (
	"context"
	"errors"
	"fmt"
	"strings"

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

// InsightCause names what the user changed between a call and the one
// before it that the prompts show: on a broken call why it broke, on a
// stable one what it appended. Causes are an open list; a new cause takes
// the next number and keeps the others (the control API sends them as
// numbers).
type InsightCause uint8

// Causes of a cache insight.
const (
	// CauseModeSwitch: the call was made in another mode, whose tools
	// differ past the ones every mode shares.
	CauseModeSwitch InsightCause = iota + 1
	// CauseModelSwitch: the call asks another upstream model, which has a
	// cache of its own.
	CauseModelSwitch
	// CauseMCPChange: the user's MCP servers changed; the call appended
	// them in a message of their own.
	CauseMCPChange
	// CauseContextChange: the user's environment (rules, skills, layouts…)
	// or editor (open files) changed; the call appended it.
	CauseContextChange
)

// String returns the cause's name.
func (c InsightCause) String() string {
	switch c {
	case CauseModeSwitch:
		return "mode switch"
	case CauseModelSwitch:
		return "model switch"
	case CauseMCPChange:
		return "MCP change"
	case CauseContextChange:
		return "context change"
	}
	return "unknown"
}

// causeOf maps a change the prompts show to its cause.
var causeOf = map[prefix.Change]InsightCause{
	prefix.ChangeModeSwitch: CauseModeSwitch, prefix.ChangeModelSwitch: CauseModelSwitch,
	prefix.ChangeMCP: CauseMCPChange, prefix.ChangeContext: CauseContextChange,
}

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
	// Causes are what the user changed since the previous call, as far as
	// the prompts show it; PreviousPrompt and Prompt name the modes of a
	// mode switch.
	Causes                 []InsightCause
	PreviousPrompt, Prompt string
	// Explanation is one sentence for people.
	Explanation string
}

// insight compares the prompt of rec with the prompt of the call just
// before it in the same conversation, using the domain prefix rules: on the
// whole requests when detailed mode kept both, on their shapes otherwise.
// Either way it names the first differing field and message, never what
// they said.
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
	in := Insight{Messages: messageCount(next), PromptTokens: promptTokens(next)}
	if len(prev) == 0 {
		in.State, in.Explanation = InsightFirst, "first call of the conversation: the provider had nothing cached yet"
		return in, nil
	}
	in.PreviousCallID = prev[0].CallID
	previous, ok, err := c.prompt(ctx, prev[0].CallID)
	if err != nil || !ok {
		in.State, in.Explanation = InsightUnknown, "the prompt of the previous call was not kept"
		return moved(in, rec), err
	}
	return moved(explain(in, previous, next), rec), nil
}

// moved names the router's move of the conversation to another target as
// the break: the new deployment's cache held nothing of the prompt, however
// well it extended the previous one.
func moved(in Insight, rec callrecord.Record) Insight {
	if rec.Route.Moved == "" {
		return in
	}
	in.State, in.PrefixTokens = InsightBroken, 0
	in.Divergence = &prefix.Divergence{Index: -1, Field: "target", Cause: prefix.CauseMoved}
	in.Explanation = fmt.Sprintf("broken by a move to target %s (%s): that deployment's cache held nothing of this conversation, so none of the %s it shares with the previous call could be reused",
		rec.Route.Target, rec.Route.Moved, messages(in.Common))
	return in
}

// prompt reads what was kept of a call's request; a shape of another
// layout than this Keygate's cannot be compared and counts as not kept.
func (c *Calls) prompt(ctx context.Context, callID string) (ports.StoredPrompt, bool, error) {
	p, err := c.o.Prompts.Prompt(ctx, callID)
	if errors.Is(err, ports.ErrNotFound) {
		return ports.StoredPrompt{}, false, nil
	}
	if err != nil {
		return ports.StoredPrompt{}, false, fmt.Errorf("read prompt of %s: %w", callID, err)
	}
	if p.Request == nil && (p.Shape == nil || p.Shape.Layout != prefix.ShapeLayout) {
		return ports.StoredPrompt{}, false, nil
	}
	return p, true, nil
}

// shapeOf is the shape of a kept prompt, made from the request if that is
// what was kept.
func shapeOf(p ports.StoredPrompt) prefix.Shape {
	if p.Shape != nil {
		return *p.Shape
	}
	return prefix.ShapeOf(*p.Request)
}

func messageCount(p ports.StoredPrompt) int {
	if p.Request != nil {
		return len(p.Request.Messages)
	}
	return len(p.Shape.Messages)
}

func promptTokens(p ports.StoredPrompt) int64 {
	if p.Request != nil {
		return llm.EstimateRequest(*p.Request)
	}
	return p.Shape.PromptTokens()
}

// compare reports how next extends previous and estimates the tokens of
// the first n messages of next with its instructions and tools.
func compare(previous, next ports.StoredPrompt) (prefix.Report, func(n int) int64) {
	if previous.Request != nil && next.Request != nil {
		return prefix.IsStablePrefix(*previous.Request, *next.Request), func(n int) int64 {
			shared := *next.Request
			shared.Messages = shared.Messages[:min(n, len(shared.Messages))]
			return llm.EstimateRequest(shared)
		}
	}
	shape := shapeOf(next)
	return prefix.CompareShapes(shapeOf(previous), shape), shape.PrefixTokens
}

// explain fills the verdict of comparing two prompts.
func explain(in Insight, previous, next ports.StoredPrompt) Insight {
	in = withCauses(in, shapeOf(previous), shapeOf(next))
	in = verdict(in, previous, next)
	if why := in.why(); why != "" {
		in.Explanation += ". " + why
	}
	return in
}

// withCauses names what changed between the two prompts.
func withCauses(in Insight, previous, next prefix.Shape) Insight {
	for _, c := range prefix.ChangesBetween(previous, next) {
		in.Causes = append(in.Causes, causeOf[c])
	}
	in.PreviousPrompt, in.Prompt = previous.Prompt, next.Prompt
	return in
}

// why is the sentence that names the causes: why a broken call broke,
// what a stable one appended.
func (in Insight) why() string {
	if len(in.Causes) == 0 {
		return ""
	}
	var parts []string
	for _, c := range in.Causes {
		part := c.String()
		if c == CauseModeSwitch && in.PreviousPrompt != "" && in.Prompt != "" {
			part += fmt.Sprintf(" (%s to %s)", in.PreviousPrompt, in.Prompt)
		}
		parts = append(parts, part)
	}
	if in.State == InsightBroken {
		return "Cause: " + strings.Join(parts, ", ")
	}
	return "Changed since the previous call, without a break: " + strings.Join(parts, ", ")
}

// verdict fills the state, the shared part and the sentence.
func verdict(in Insight, previous, next ports.StoredPrompt) Insight {
	r, prefixTokens := compare(previous, next)
	in.Common, in.PreviousMessages = r.Common, messageCount(previous)
	if r.Divergence == nil || r.Divergence.Index >= 0 {
		// Instructions and tools lead the prompt, so they are part of any
		// prefix that reaches the messages.
		in.PrefixTokens = prefixTokens(r.Common)
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
