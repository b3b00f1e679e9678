package openai

import (
	"encoding/json"
	"strings"

	"keygate/adapters/provider/failure"
	"keygate/adapters/provider/wire"
	"keygate/domain/llm"
)

// Output items of a Responses stream: function calls, reasoning items kept
// for replay, and the terminal event that closes them all.

func (d *ResponsesDecoder) callAdded(idx int, it *respItem, out []llm.Event) []llm.Event {
	o := d.output(idx)
	o.call = true
	o.callID = mergeFragment(o.callID, it.CallID)
	o.name = mergeFragment(o.name, it.Name)
	if it.Arguments != "" && len(o.args) == 0 {
		o.args = append(o.args, it.Arguments...)
	}
	return d.maybeStart(idx, o, out)
}

func (d *ResponsesDecoder) maybeStart(idx int, o *respOutput, out []llm.Event) []llm.Event {
	if o.callStarted || o.callID == "" || o.name == "" {
		return out
	}
	out = d.closeThinking(out)
	o.callStarted = true
	out = append(out, llm.Event{Kind: llm.EventToolCallStart, Index: idx, CallID: o.callID, Name: o.name})
	if len(o.args) > 0 {
		out = append(out, llm.Event{Kind: llm.EventToolCallArgumentsDelta, Index: idx, Text: string(o.args)})
	}
	return out
}

func (d *ResponsesDecoder) argsDelta(idx int, delta string, out []llm.Event) []llm.Event {
	o := d.output(idx)
	o.call = true
	if o.callDone || delta == "" {
		return out
	}
	o.args = append(o.args, delta...)
	if o.callStarted {
		out = append(out, llm.Event{Kind: llm.EventToolCallArgumentsDelta, Index: idx, Text: delta})
	}
	return out
}

// argsSnapshot checks final arguments against the streamed ones: equal is
// fine, an extension emits the missing suffix, anything else is an error.
func (d *ResponsesDecoder) argsSnapshot(idx int, final string, out []llm.Event) ([]llm.Event, error) {
	o := d.output(idx)
	if final == "" || o.callDone {
		return out, nil
	}
	if len(final) < len(o.args) || final[:len(o.args)] != string(o.args) {
		return out, failure.Protocol(responsesLabel, "final tool arguments do not match streamed arguments", nil)
	}
	return d.argsDelta(idx, final[len(o.args):], out), nil
}

func (d *ResponsesDecoder) itemDone(idx int, it *respItem, out []llm.Event) ([]llm.Event, error) {
	d.sawItemDone = true
	switch it.Type {
	case "reasoning":
		out = d.closeThinking(out)
		d.reasoning = append(d.reasoning, projectReasoning(it))
	case "message":
		var parts []struct {
			Type    string `json:"type"`
			Text    string `json:"text"`
			Refusal string `json:"refusal"`
		}
		_ = json.Unmarshal(it.Content, &parts) // content is informative only
		var final strings.Builder
		for _, p := range parts {
			final.WriteString(p.Text)
			final.WriteString(p.Refusal)
		}
		out = d.textDone(idx, final.String(), out)
	case "function_call":
		o := d.output(idx)
		o.call = true
		if !o.callStarted { // llama.cpp's final call_id differs from the one it announced
			o.callID = mergeFragment(o.callID, it.CallID)
			o.name = mergeFragment(o.name, it.Name)
		}
		var err error
		if out, err = d.argsSnapshot(idx, it.Arguments, out); err != nil {
			return out, err
		}
		out = d.maybeStart(idx, o, out)
		if o.callStarted && !o.callDone {
			o.callDone = true
			out = append(out, llm.Event{Kind: llm.EventToolCallEnd, Index: idx})
		}
	}
	return out, nil
}

// projectReasoning keeps exactly the fields of a reasoning item that are
// valid on input (see writeReasoningItem, which reads them back).
func projectReasoning(it *respItem) []byte {
	var w wire.Writer
	w.BeginObject()
	w.StringField("type", "reasoning")
	w.StringField("id", it.ID)
	for _, f := range [...]struct {
		key string
		raw json.RawMessage
	}{{"summary", it.Summary}, {"content", it.Content}, {"encrypted_content", it.EncryptedContent}} {
		if len(f.raw) > 0 && string(f.raw) != "null" {
			w.Key(f.key)
			_ = w.Raw(f.raw) // valid: it was decoded as JSON
		}
	}
	w.EndObject()
	return w.B
}

// finish closes every block at a terminal event and emits Done; incomplete
// is the reason of a response.incomplete ("" for a completed response).
func (d *ResponsesDecoder) finish(incomplete string, out []llm.Event) ([]llm.Event, error) {
	d.ended = true
	out = d.closeThinking(out)
	tools := false
	for i := range d.outputs {
		o := &d.outputs[i]
		if o.textOpen {
			o.textOpen = false
			out = append(out, llm.Event{Kind: llm.EventTextEnd})
		}
		if !o.call {
			continue
		}
		tools = true
		if !o.callStarted {
			if incomplete == "" {
				return out, failure.Protocol(responsesLabel, "tool call is missing call_id or name", nil)
			}
			continue
		}
		if !o.callDone {
			o.callDone = true
			out = append(out, llm.Event{Kind: llm.EventToolCallEnd, Index: i})
		}
	}
	if d.usage != nil {
		out = append(out, llm.Event{Kind: llm.EventUsage, Usage: d.usage})
	}
	if len(d.reasoning) > 0 {
		var w wire.Writer
		w.BeginObject()
		w.Key("items")
		w.BeginArray()
		for _, it := range d.reasoning {
			_ = w.Raw(it)
		}
		w.EndArray()
		w.EndObject()
		out = append(out, llm.Event{Kind: llm.EventReplayState,
			Replay: &llm.ReplayState{Kind: llm.ProviderOpenAIResponses, Value: w.B}})
	}
	finish := llm.FinishStop
	switch {
	case incomplete == "content_filter":
		finish = llm.FinishContentFilter
	case incomplete != "":
		finish = llm.FinishLength
	case tools:
		finish = llm.FinishToolUse
	}
	return append(out, llm.Event{Kind: llm.EventDone, Finish: finish}), nil
}

// End handles EOF: a stream that completed at least one item but lost its
// terminal event is finished as if completed; one that never did is an error.
func (d *ResponsesDecoder) End(out []llm.Event) ([]llm.Event, error) {
	if d.ended {
		return out, nil
	}
	if !d.sawItemDone {
		d.ended = true
		return out, failure.Protocol(responsesLabel, "stream ended without response.completed or response.incomplete", nil)
	}
	for i := range d.outputs {
		if o := &d.outputs[i]; o.call && !o.callDone {
			d.ended = true
			return out, failure.Protocol(responsesLabel, "stream ended with an unfinished tool call", nil)
		}
	}
	return d.finish("", out)
}
