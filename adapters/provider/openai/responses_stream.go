package openai

import (
	"bytes"
	"encoding/json"
	"strings"

	"keygate/adapters/provider/failure"
	"keygate/adapters/provider/sse"
	"keygate/adapters/provider/wire"
	"keygate/domain/llm"
)

// respEvent names the fields Keygate reads from any Responses event.
type respEvent struct {
	Type        string        `json:"type"`
	OutputIndex int           `json:"output_index"`
	Delta       string        `json:"delta"`
	Text        string        `json:"text"`
	Refusal     string        `json:"refusal"`
	Arguments   string        `json:"arguments"`
	Item        *respItem     `json:"item"`
	Response    *respResponse `json:"response"`
	// Flat error fields of the "error" event.
	Code    json.RawMessage `json:"code"`
	Message string          `json:"message"`
}

type respItem struct {
	Type      string          `json:"type"`
	ID        string          `json:"id"`
	CallID    string          `json:"call_id"`
	Name      string          `json:"name"`
	Arguments string          `json:"arguments"`
	Content   json.RawMessage `json:"content"`
	// Reasoning items are kept for replay; see reasoningItem.
	Summary          json.RawMessage `json:"summary"`
	EncryptedContent json.RawMessage `json:"encrypted_content"`
}

type respResponse struct {
	ID                string     `json:"id"`
	Model             string     `json:"model"`
	Usage             *respUsage `json:"usage"`
	Error             *apiError  `json:"error"`
	IncompleteDetails *struct {
		Reason string `json:"reason"`
	} `json:"incomplete_details"`
}

type respUsage struct {
	InputTokens        int64 `json:"input_tokens"`
	OutputTokens       int64 `json:"output_tokens"`
	InputTokensDetails *struct {
		CachedTokens *int64 `json:"cached_tokens"`
	} `json:"input_tokens_details"`
	OutputTokensDetails *struct {
		ReasoningTokens *int64 `json:"reasoning_tokens"`
	} `json:"output_tokens_details"`
}

// respOutput is the decoder's state of one output item, by output_index.
type respOutput struct {
	used         bool
	text         []byte // text streamed so far, to reconcile with done events
	textOpen     bool
	textDone     bool
	call         bool
	callID, name string
	args         []byte
	callStarted  bool
	callDone     bool
}

// ResponsesDecoder turns a Responses stream into model events. Use one per
// call.
type ResponsesDecoder struct {
	started      bool
	id, model    string
	outputs      []respOutput
	thinkingOpen bool
	reasoning    [][]byte // projected reasoning items, for replay
	sawItemDone  bool
	usage        *llm.Usage
	ended        bool
}

// Meta returns the response id and model the stream reported.
func (d *ResponsesDecoder) Meta() (id, model string) { return d.id, d.model }

// Ended reports whether the stream reached its terminal event.
func (d *ResponsesDecoder) Ended() bool { return d.ended }

func (d *ResponsesDecoder) output(i int) *respOutput {
	for len(d.outputs) <= i {
		d.outputs = append(d.outputs, respOutput{})
	}
	d.outputs[i].used = true
	return &d.outputs[i]
}

// Decode handles one SSE event and appends the resulting events to out.
func (d *ResponsesDecoder) Decode(ev sse.Event, out []llm.Event) ([]llm.Event, error) {
	if d.ended {
		return out, nil
	}
	data := ev.Data
	if string(bytes.TrimSpace(data)) == "[DONE]" {
		return out, nil // tolerated; the terminal event is what counts
	}
	if out, ok := d.fastEvent(data, out); ok {
		return out, nil
	}
	var e respEvent
	if err := json.Unmarshal(data, &e); err != nil {
		return out, failure.Protocol(responsesLabel, "stream JSON error", err)
	}
	if !d.started {
		d.started = true
		if e.Response != nil {
			d.id, d.model = e.Response.ID, e.Response.Model
		}
		out = append(out, llm.Event{Kind: llm.EventStart, ModelCallID: d.id})
	}
	switch e.Type {
	case "response.output_text.delta", "response.refusal.delta":
		return d.textDelta(e.OutputIndex, e.Delta, out), nil
	case "response.output_text.done":
		return d.textDone(e.OutputIndex, e.Text, out), nil
	case "response.refusal.done":
		return d.textDone(e.OutputIndex, e.Refusal, out), nil
	case "response.reasoning_summary_text.delta", "response.reasoning_text.delta":
		return d.thinkingDelta(e.Delta, out), nil
	case "response.reasoning_summary_text.done", "response.reasoning_text.done":
		if !d.thinkingOpen && e.Text != "" { // deltas were never streamed
			out = d.thinkingDelta(e.Text, out)
		}
		return d.closeThinking(out), nil
	case "response.output_item.added":
		if e.Item != nil && e.Item.Type == "function_call" {
			return d.callAdded(e.OutputIndex, e.Item, out), nil
		}
	case "response.output_item.done":
		if e.Item != nil {
			return d.itemDone(e.OutputIndex, e.Item, out)
		}
	case "response.function_call_arguments.delta":
		return d.argsDelta(e.OutputIndex, e.Delta, out), nil
	case "response.function_call_arguments.done":
		return d.argsSnapshot(e.OutputIndex, e.Arguments, out)
	case "response.completed", "response.incomplete":
		if e.Response != nil {
			if e.Response.Model != "" {
				d.model = e.Response.Model
			}
			if e.Response.Usage != nil {
				d.usage = respToUsage(e.Response.Usage)
			}
		}
		return d.finish(e.Type == "response.incomplete", out)
	case "error":
		code := ""
		if len(e.Code) > 0 {
			code = (&apiError{Code: e.Code}).code()
		}
		return out, failure.InBand(responsesLabel, code, e.Message)
	case "response.failed":
		if e.Response != nil && e.Response.Error != nil {
			return out, failure.InBand(responsesLabel, e.Response.Error.code(), e.Response.Error.Message)
		}
		return out, failure.InBand(responsesLabel, "", "response failed")
	}
	return out, nil
}

func (d *ResponsesDecoder) closeThinking(out []llm.Event) []llm.Event {
	if d.thinkingOpen {
		d.thinkingOpen = false
		out = append(out, llm.Event{Kind: llm.EventThinkingEnd})
	}
	return out
}

func (d *ResponsesDecoder) thinkingDelta(text string, out []llm.Event) []llm.Event {
	if text == "" {
		return out
	}
	if !d.thinkingOpen {
		d.thinkingOpen = true
		out = append(out, llm.Event{Kind: llm.EventThinkingStart})
	}
	return append(out, llm.Event{Kind: llm.EventThinkingDelta, Text: text})
}

func (d *ResponsesDecoder) textDelta(idx int, text string, out []llm.Event) []llm.Event {
	o := d.output(idx)
	if o.textDone || text == "" {
		return out
	}
	out = d.closeThinking(out)
	if !o.textOpen {
		out = d.closeOtherText(idx, out)
		o.textOpen = true
		out = append(out, llm.Event{Kind: llm.EventTextStart})
	}
	o.text = append(o.text, text...)
	return append(out, llm.Event{Kind: llm.EventTextDelta, Text: text})
}

// closeOtherText ends the text block of any other item: the grammar allows
// one open text block, and a new message item supersedes the previous one.
func (d *ResponsesDecoder) closeOtherText(idx int, out []llm.Event) []llm.Event {
	for i := range d.outputs {
		if o := &d.outputs[i]; i != idx && o.textOpen {
			o.textOpen = false
			out = append(out, llm.Event{Kind: llm.EventTextEnd})
		}
	}
	return out
}

// textDone reconciles the authoritative text of an item with what was
// streamed: a missing suffix is emitted, then the block ends. A second report
// for the same item changes nothing.
func (d *ResponsesDecoder) textDone(idx int, final string, out []llm.Event) []llm.Event {
	o := d.output(idx)
	if o.textDone {
		return out
	}
	if len(final) > len(o.text) && final[:len(o.text)] == string(o.text) {
		out = d.textDelta(idx, final[len(o.text):], out)
	}
	o.textDone = true
	if o.textOpen {
		o.textOpen = false
		out = append(out, llm.Event{Kind: llm.EventTextEnd})
	}
	return out
}

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
		o.callID = mergeFragment(o.callID, it.CallID)
		o.name = mergeFragment(o.name, it.Name)
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

// finish closes every block at a terminal event and emits Done.
func (d *ResponsesDecoder) finish(incomplete bool, out []llm.Event) ([]llm.Event, error) {
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
			if !incomplete {
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
	case incomplete:
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
	return d.finish(false, out)
}

func respToUsage(u *respUsage) *llm.Usage {
	var cached, reasoning int64
	haveCached, haveReasoning := false, false
	if u.InputTokensDetails != nil && u.InputTokensDetails.CachedTokens != nil {
		cached, haveCached = *u.InputTokensDetails.CachedTokens, true
	}
	if u.OutputTokensDetails != nil && u.OutputTokensDetails.ReasoningTokens != nil {
		reasoning, haveReasoning = *u.OutputTokensDetails.ReasoningTokens, true
	}
	return toUsage(u.InputTokens, cached, u.OutputTokens, reasoning, haveCached, haveReasoning)
}
