package openai

import (
	"strconv"

	"keygate/adapters/provider/failure"
	"keygate/adapters/provider/wire"
	"keygate/domain/llm"
)

// The end of a Chat stream: calls that never started, usage, replay state
// and the collapsed finish reason.

// End finishes the stream at [DONE] or EOF: it closes open blocks, starts
// and ends every tool call, reports usage and replay state and emits Done.
func (d *ChatDecoder) End(out []llm.Event) ([]llm.Event, error) {
	if d.ended {
		return out, nil
	}
	d.ended = true
	if !d.started {
		return out, failure.Protocol(chatLabel, "stream ended without any chunk", nil)
	}
	out = d.closeThinking(out)
	if d.textOpen {
		d.textOpen = false
		out = append(out, llm.Event{Kind: llm.EventTextEnd})
	}
	for i := range d.calls {
		c := &d.calls[i]
		if c.started {
			continue
		}
		if c.name == "" {
			return out, failure.Protocol(chatLabel, "tool call is missing name", nil)
		}
		if c.id == "" {
			c.id = "call-" + strconv.Itoa(c.index)
		}
		out = d.startCall(c, out)
	}
	for i := range d.calls {
		out = append(out, llm.Event{Kind: llm.EventToolCallEnd, Index: d.calls[i].index})
	}
	if d.usage != nil {
		out = append(out, llm.Event{Kind: llm.EventUsage, Usage: d.usage})
	}
	if replay := d.replay(); replay != nil {
		out = append(out, llm.Event{Kind: llm.EventReplayState,
			Replay: &llm.ReplayState{Kind: llm.ProviderOpenAIChat, Value: replay}})
	}
	if d.finish == "" && !d.sawDone {
		return out, failure.Protocol(chatLabel, "stream ended without finish_reason", nil)
	}
	done := llm.Event{Kind: llm.EventDone, Finish: d.collapse()}
	if done.Finish == llm.FinishContentFilter {
		done.Filter = d.filter
	}
	return append(out, done), nil
}

// replay is the turn's replay state: the reasoning_content the server
// streamed, and each call's extra_content by call id; nil when there is none.
func (d *ChatDecoder) replay() []byte {
	extra := false
	for i := range d.calls {
		extra = extra || len(d.calls[i].extra) > 0
	}
	if !d.sawReasoning && !extra {
		return nil
	}
	var w wire.Writer
	w.BeginObject()
	if d.sawReasoning {
		w.StringField("reasoning_content", string(d.reasoning))
	}
	if extra {
		w.Key("extra_content")
		w.BeginObject()
		for i := range d.calls {
			if c := &d.calls[i]; len(c.extra) > 0 {
				w.Key(c.id)
				_ = w.Raw(c.extra) // valid: it was decoded as JSON
			}
		}
		w.EndObject()
	}
	w.EndObject()
	return w.B
}

// collapse maps finish_reason. Compatible servers often say "stop" while
// calling tools, so any ordinary label becomes ToolUse when calls were seen;
// content_filter is no answer (and never runs tools) and length stays
// truncated.
func (d *ChatDecoder) collapse() llm.FinishReason {
	switch d.finish {
	case "tool_calls", "function_call":
		return llm.FinishToolUse
	case "length":
		return llm.FinishLength
	case "content_filter":
		return llm.FinishContentFilter
	}
	if len(d.calls) > 0 {
		return llm.FinishToolUse
	}
	return llm.FinishStop
}
