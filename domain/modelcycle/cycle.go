package modelcycle

import (
	"slices"
	"strings"

	"keygate/domain/llm"
)

// Result is what a complete, valid cycle produced.
type Result struct {
	// ModelCallID is the provider's response id from Start (may be empty).
	ModelCallID string
	// Assistant holds the text, thinking, replay state and the tool calls
	// ordered by index, with normalised names and parsed arguments.
	Assistant llm.Assistant
	// Usage is the cycle's usage, nil when the provider reported none.
	Usage  *llm.Usage
	Finish llm.FinishReason
	// Filter is what the provider's content filter flagged (Finish
	// FinishContentFilter).
	Filter []llm.FilterHit
}

type openCall struct {
	call llm.ToolCall
	args strings.Builder
	done bool
}

// Cycle checks the events of one model stream against the grammar
//
//	Start (text block | thinking block | tool-call block | ReplayState | Usage)* Done
//
// and accumulates its result. Blocks of different kinds may interleave and
// several tool calls may be open at once; Done may only follow when every
// block is closed, and nothing follows Done. A Cycle is not safe for
// concurrent use; after a grammar error it keeps refusing events.
type Cycle struct {
	started, done          bool
	textOpen, thinkingOpen bool
	failed                 error
	text, thinking         strings.Builder
	calls                  map[int]*openCall
	callIDs                map[string]bool
	result                 Result
}

// New returns a cycle waiting for Start.
func New() *Cycle {
	return &Cycle{calls: map[int]*openCall{}, callIDs: map[string]bool{}}
}

// Apply checks one event and accumulates it. A violation is a
// *GrammarError (ErrGrammar).
func (c *Cycle) Apply(e llm.Event) error {
	if c.failed != nil {
		return c.failed
	}
	if err := c.apply(e); err != nil {
		c.failed = err
		return err
	}
	return nil
}

func (c *Cycle) apply(e llm.Event) error {
	bad := func(reason string) error { return &GrammarError{Event: e.Kind, Index: e.Index, Reason: reason} }
	switch {
	case c.done:
		return bad("event after done")
	case e.Kind == llm.EventStart && c.started:
		return bad("duplicate start")
	case e.Kind != llm.EventStart && !c.started:
		return bad("event before start")
	}
	switch e.Kind {
	case llm.EventStart:
		c.started, c.result.ModelCallID = true, e.ModelCallID
	case llm.EventTextStart, llm.EventTextDelta, llm.EventTextEnd:
		return block(&c.textOpen, &c.text, e, bad)
	case llm.EventThinkingStart, llm.EventThinkingDelta, llm.EventThinkingEnd:
		return block(&c.thinkingOpen, &c.thinking, e, bad)
	case llm.EventToolCallStart, llm.EventToolCallArgumentsDelta, llm.EventToolCallEnd:
		return c.toolEvent(e, bad)
	case llm.EventReplayState:
		if c.result.Assistant.Replay != nil || e.Replay == nil {
			return bad("at most one replay state, and it carries a value")
		}
		r := *e.Replay
		c.result.Assistant.Replay = &r
	case llm.EventUsage:
		if c.result.Usage != nil || e.Usage == nil {
			return bad("at most one usage, and it carries a value")
		}
		u := *e.Usage
		c.result.Usage = &u
	case llm.EventDone:
		if c.textOpen || c.thinkingOpen || len(c.openCalls()) > 0 {
			return bad("done while a block is open")
		}
		c.done, c.result.Finish = true, e.Finish
		c.result.Filter = append([]llm.FilterHit(nil), e.Filter...)
	default:
		return bad("unknown event kind")
	}
	return nil
}

// block applies the start/delta/end grammar of a text or thinking block.
func block(open *bool, buf *strings.Builder, e llm.Event, bad func(string) error) error {
	switch e.Kind {
	case llm.EventTextStart, llm.EventThinkingStart:
		if *open {
			return bad("block already open")
		}
		*open = true
	case llm.EventTextDelta, llm.EventThinkingDelta:
		if !*open {
			return bad("delta outside a block")
		}
		buf.WriteString(e.Text)
	default:
		if !*open {
			return bad("end without a start")
		}
		*open = false
	}
	return nil
}

func (c *Cycle) toolEvent(e llm.Event, bad func(string) error) error {
	oc := c.calls[e.Index]
	switch e.Kind {
	case llm.EventToolCallStart:
		switch {
		case oc != nil:
			return bad("tool call index reused")
		case e.CallID == "" || c.callIDs[e.CallID]:
			return bad("tool call id missing or reused")
		case e.Name == "":
			return bad("tool call without a name")
		}
		c.calls[e.Index] = &openCall{call: llm.ToolCall{Index: e.Index, CallID: e.CallID, Name: NormalizeToolName(e.Name)}}
		c.callIDs[e.CallID] = true
	case llm.EventToolCallArgumentsDelta:
		if oc == nil || oc.done {
			return bad("arguments for an unknown or ended tool call")
		}
		oc.args.WriteString(e.Text)
	default:
		if oc == nil || oc.done {
			return bad("end of an unknown or ended tool call")
		}
		oc.done = true
		oc.call.Arguments, oc.call.ArgumentError = ParseArguments(oc.call.Name, oc.args.String())
	}
	return nil
}

func (c *Cycle) openCalls() []*openCall {
	var open []*openCall
	for _, oc := range c.calls {
		if !oc.done {
			open = append(open, oc)
		}
	}
	return open
}

// End closes the cycle when the stream ended and applies the finish
// checks. It returns the accumulated result in every case, so partial
// output and usage can still be shown and accounted, together with:
// the grammar error if one occurred; ErrEOFBeforeDone without Done;
// ErrTruncated for a Length finish; a *FilteredError for a content-filter
// finish (whatever the stream held before it); a *GrammarError when the finish reason
// and the tool calls disagree (ToolUse needs at least one call and calls
// need ToolUse).
func (c *Cycle) End() (Result, error) {
	r := c.result
	r.Assistant.Text, r.Assistant.Thinking = c.text.String(), c.thinking.String()
	for _, oc := range c.calls {
		if oc.done {
			r.Assistant.Calls = append(r.Assistant.Calls, oc.call)
		}
	}
	slices.SortFunc(r.Assistant.Calls, func(a, b llm.ToolCall) int { return a.Index - b.Index })
	switch {
	case c.failed != nil:
		return r, c.failed
	case !c.done:
		return r, ErrEOFBeforeDone
	case r.Finish == llm.FinishLength:
		return r, ErrTruncated
	case r.Finish == llm.FinishContentFilter:
		return r, &FilteredError{Hits: r.Filter}
	case (r.Finish == llm.FinishToolUse) != (len(r.Assistant.Calls) > 0):
		return r, &GrammarError{Event: llm.EventDone, Reason: "finish reason and tool calls disagree"}
	case r.Finish != llm.FinishStop && r.Finish != llm.FinishToolUse:
		return r, &GrammarError{Event: llm.EventDone, Reason: "unknown finish reason"}
	}
	return r, nil
}
