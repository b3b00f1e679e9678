package anthropic

import (
	"keygate/adapters/provider/failure"
	"keygate/adapters/provider/wire"
	"keygate/domain/llm"
)

// The end of a Messages stream: usage merging, the refusal gate, the
// collapsed finish reason and the replay state of thinking blocks.

// finish closes open blocks, reports usage and replay state, and emits Done
// with the collapsed finish reason. Tools streamed alongside a refusal are a
// refusal error: a refusal never authorizes tool execution.
func (d *Decoder) finish(out []llm.Event) ([]llm.Event, error) {
	d.ended = true
	for _, idx := range d.order {
		out = d.blockStop(idx, out)
	}
	if d.haveUsage {
		out = append(out, llm.Event{Kind: llm.EventUsage, Usage: d.normalisedUsage()})
	}
	if replay := d.replay(); replay != nil {
		out = append(out, llm.Event{Kind: llm.EventReplayState, Replay: replay})
	}
	if d.refusal && d.tools {
		return out, &llm.ProviderError{Class: llm.ErrorRefusal, Message: "Anthropic refused to execute tool calls"}
	}
	done := llm.Event{Kind: llm.EventDone, Finish: d.collapse()}
	if done.Finish == llm.FinishContentFilter && d.refusalCategory != "" {
		done.Filter = []llm.FilterHit{{Category: d.refusalCategory}}
	}
	return append(out, done), nil
}

// A refusal is the stop of Anthropic's policy classifiers: like a content
// filter, it is no answer, whatever text came before it.
func (d *Decoder) collapse() llm.FinishReason {
	if d.refusal {
		return llm.FinishContentFilter
	}
	switch d.stop {
	case "max_tokens", "model_context_window_exceeded":
		return llm.FinishLength
	case "tool_use":
		return llm.FinishToolUse
	}
	if d.tools {
		return llm.FinishToolUse // observed tool blocks outrank an ordinary stop
	}
	return llm.FinishStop
}

// replay returns the signed thinking and redacted thinking blocks in stream
// order, or nil when there are none.
func (d *Decoder) replay() *llm.ReplayState {
	var w wire.Writer
	n := 0
	for _, idx := range d.order {
		b := d.blocks[idx]
		signed := b.kind == "thinking" && len(b.signature) > 0
		if !signed && b.kind != "redacted_thinking" {
			continue
		}
		if n == 0 {
			w.BeginObject()
			w.Key("blocks")
			w.BeginArray()
		}
		n++
		w.BeginObject()
		if signed {
			w.StringField("type", "thinking")
			w.StringField("thinking", string(b.thinking))
			w.StringField("signature", string(b.signature))
		} else {
			w.StringField("type", "redacted_thinking")
			w.StringField("data", b.data)
		}
		w.EndObject()
	}
	if n == 0 {
		return nil
	}
	w.EndArray()
	w.EndObject()
	return &llm.ReplayState{Kind: llm.ProviderAnthropic, Value: w.B}
}

// End handles EOF: after a stop reason the stream finishes normally; without
// one it is an error (and never authorizes tools).
func (d *Decoder) End(out []llm.Event) ([]llm.Event, error) {
	if d.ended {
		return out, nil
	}
	if d.stop == "" {
		d.ended = true
		return out, failure.Protocol(label, "stream ended without message_stop", nil)
	}
	return d.finish(out)
}
