package openai

import (
	"bytes"
	"encoding/json"

	"keygate/adapters/provider/failure"
	"keygate/adapters/provider/sse"
	"keygate/domain/llm"
)

// respEvent names the fields Keygate reads from any Responses event.
type respEvent struct {
	Type string `json:"type"`
	// OutputIndex is missing from llama.cpp's emulated events, which name
	// their item by ItemID (or the item's own id) only.
	OutputIndex *int          `json:"output_index"`
	ItemID      string        `json:"item_id"`
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
	items        map[string]int // output slot by item id, for events without output_index
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
	// The response's id and model are those of the first event that
	// carries them.
	if e.Response != nil {
		if d.id == "" {
			d.id = e.Response.ID
		}
		if d.model == "" {
			d.model = e.Response.Model
		}
	}
	if !d.started {
		d.started = true
		out = append(out, llm.Event{Kind: llm.EventStart, ModelCallID: d.id})
	}
	idx := d.slot(&e)
	switch e.Type {
	case "response.output_text.delta", "response.refusal.delta":
		return d.textDelta(idx, e.Delta, out), nil
	case "response.output_text.done":
		return d.textDone(idx, e.Text, out), nil
	case "response.refusal.done":
		return d.textDone(idx, e.Refusal, out), nil
	case "response.reasoning_summary_text.delta", "response.reasoning_text.delta":
		return d.thinkingDelta(e.Delta, out), nil
	case "response.reasoning_summary_text.done", "response.reasoning_text.done":
		if !d.thinkingOpen && e.Text != "" { // deltas were never streamed
			out = d.thinkingDelta(e.Text, out)
		}
		return d.closeThinking(out), nil
	case "response.output_item.added":
		if e.Item != nil && e.Item.Type == "function_call" {
			return d.callAdded(idx, e.Item, out), nil
		}
	case "response.output_item.done":
		if e.Item != nil {
			return d.itemDone(idx, e.Item, out)
		}
	case "response.function_call_arguments.delta":
		return d.argsDelta(idx, e.Delta, out), nil
	case "response.function_call_arguments.done":
		return d.argsSnapshot(idx, e.Arguments, out)
	case "response.completed", "response.incomplete":
		if e.Response != nil {
			if e.Response.Model != "" {
				d.model = e.Response.Model
			}
			if e.Response.Usage != nil {
				d.usage = respToUsage(e.Response.Usage)
			}
		}
		reason := ""
		if e.Type == "response.incomplete" {
			reason = "incomplete"
			if e.Response != nil && e.Response.IncompleteDetails != nil && e.Response.IncompleteDetails.Reason != "" {
				reason = e.Response.IncompleteDetails.Reason
			}
		}
		return d.finish(reason, out)
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

// slot is the output slot an event refers to: its output_index when it has
// one. Without one it is the slot of the item it names (item_id, the item's
// id, or for a function call the call_id, which llama.cpp's final event sets
// to the item id it announced), or a new slot for an item not seen before.
func (d *ResponsesDecoder) slot(e *respEvent) int {
	if e.OutputIndex != nil {
		return *e.OutputIndex
	}
	keys := []string{e.ItemID}
	if e.Item != nil {
		keys = append(keys, e.Item.ID, e.Item.CallID)
	}
	for _, k := range keys {
		if i, ok := d.items[k]; ok && k != "" {
			return i
		}
	}
	i := len(d.outputs)
	if d.items == nil {
		d.items = map[string]int{}
	}
	for _, k := range keys {
		if k != "" {
			d.items[k] = i
			d.output(i) // reserved, so the next new item gets the next slot
		}
	}
	return i
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
