package anthropic

import (
	"encoding/json"

	"keygate/adapters/provider/failure"
	"keygate/adapters/provider/sse"
	"keygate/domain/llm"
)

// event names the fields Keygate reads from any Messages stream event.
type event struct {
	Type    string `json:"type"`
	Index   int    `json:"index"`
	Message *struct {
		ID    string    `json:"id"`
		Model string    `json:"model"`
		Usage *rawUsage `json:"usage"`
	} `json:"message"`
	ContentBlock *struct {
		Type     string `json:"type"`
		ID       string `json:"id"`
		Name     string `json:"name"`
		Text     string `json:"text"`
		Thinking string `json:"thinking"`
		Data     string `json:"data"`
	} `json:"content_block"`
	Delta *struct {
		Type        string `json:"type"`
		Text        string `json:"text"`
		Thinking    string `json:"thinking"`
		Signature   string `json:"signature"`
		PartialJSON string `json:"partial_json"`
		StopReason  string `json:"stop_reason"`
		StopDetails *struct {
			Category string `json:"category"`
		} `json:"stop_details"`
	} `json:"delta"`
	Usage *rawUsage `json:"usage"`
	Error *struct {
		Type    string `json:"type"`
		Message string `json:"message"`
	} `json:"error"`
}

type blockState struct {
	kind      string // text, thinking, redacted_thinking, tool_use, other
	open      bool
	thinking  []byte
	signature []byte
	data      string
}

// Decoder turns a Messages stream into model events. Use one per call.
type Decoder struct {
	started   bool
	id, model string
	blocks    map[int]*blockState
	order     []int // block indexes in the order they started
	tools     bool
	stop      string
	refusal   bool
	// refusalCategory is the policy category of a refusal, when given.
	refusalCategory string
	usage           llm.UsageCounts // merged from message_start and message_delta
	haveUsage       bool
	ended           bool
}

// Meta returns the message id and model the stream reported.
func (d *Decoder) Meta() (id, model string) { return d.id, d.model }

// Ended reports whether the stream reached its terminal event.
func (d *Decoder) Ended() bool { return d.ended }

// Decode handles one SSE event and appends the resulting events to out.
func (d *Decoder) Decode(ev sse.Event, out []llm.Event) ([]llm.Event, error) {
	if d.ended {
		return out, nil
	}
	if out, ok := d.fastDelta(ev.Data, out); ok {
		return out, nil
	}
	var e event
	if err := json.Unmarshal(ev.Data, &e); err != nil {
		return out, failure.Protocol(label, "stream JSON error", err)
	}
	if e.Type == "error" {
		if e.Error == nil {
			return out, failure.InBand(label, "", "error event without details")
		}
		return out, failure.InBand(label, e.Error.Type, e.Error.Message)
	}
	if e.Type == "ping" {
		return out, nil
	}
	if !d.started {
		d.started = true
		if e.Message != nil {
			d.id, d.model = e.Message.ID, e.Message.Model
		}
		out = append(out, llm.Event{Kind: llm.EventStart, ModelCallID: d.id})
	}
	switch e.Type {
	case "message_start":
		if e.Message != nil {
			d.merge(e.Message.Usage)
		}
	case "content_block_start":
		if cb := e.ContentBlock; cb != nil {
			out = d.blockStart(e.Index, cb.Type, cb.ID, cb.Name, cb.Data, out)
			if cb.Text != "" {
				out = d.text(e.Index, cb.Text, out)
			}
			if cb.Thinking != "" {
				out = d.thinking(e.Index, cb.Thinking, out)
			}
		}
	case "content_block_delta":
		if e.Delta != nil {
			out = d.delta(e.Index, e.Delta.Type, e.Delta.Text, e.Delta.Thinking, e.Delta.Signature, e.Delta.PartialJSON, out)
		}
	case "content_block_stop":
		out = d.blockStop(e.Index, out)
	case "message_delta":
		d.merge(e.Usage)
		if e.Delta != nil && e.Delta.StopReason != "" {
			d.stop = e.Delta.StopReason
			if d.stop == "refusal" {
				d.refusal = true // sticky: a later stop never erases it
				if sd := e.Delta.StopDetails; sd != nil {
					d.refusalCategory = sd.Category
				}
			}
		}
	case "message_stop":
		return d.finish(out)
	}
	return out, nil
}

func (d *Decoder) block(idx int) *blockState {
	if d.blocks == nil {
		d.blocks = make(map[int]*blockState, 4)
	}
	b := d.blocks[idx]
	if b == nil {
		b = &blockState{}
		d.blocks[idx] = b
		d.order = append(d.order, idx)
	}
	return b
}

func (d *Decoder) blockStart(idx int, kind, id, name, data string, out []llm.Event) []llm.Event {
	b := d.block(idx)
	b.kind, b.open = kind, true
	switch kind {
	case "text":
		out = append(out, llm.Event{Kind: llm.EventTextStart, Index: idx})
	case "thinking":
		out = append(out, llm.Event{Kind: llm.EventThinkingStart, Index: idx})
	case "redacted_thinking":
		b.data = data
	case "tool_use":
		d.tools = true
		out = append(out, llm.Event{Kind: llm.EventToolCallStart, Index: idx, CallID: id, Name: name})
	default:
		b.open = false // server tools and other blocks carry nothing for the engine
	}
	return out
}

func (d *Decoder) text(idx int, text string, out []llm.Event) []llm.Event {
	b := d.block(idx)
	if b.kind == "" { // a delta without a start opens the block implicitly
		out = d.blockStart(idx, "text", "", "", "", out)
	}
	if !b.open || b.kind != "text" || text == "" {
		return out
	}
	return append(out, llm.Event{Kind: llm.EventTextDelta, Index: idx, Text: text})
}

func (d *Decoder) thinking(idx int, text string, out []llm.Event) []llm.Event {
	b := d.block(idx)
	if b.kind == "" {
		out = d.blockStart(idx, "thinking", "", "", "", out)
	}
	if !b.open || b.kind != "thinking" || text == "" {
		return out
	}
	b.thinking = append(b.thinking, text...)
	return append(out, llm.Event{Kind: llm.EventThinkingDelta, Index: idx, Text: text})
}

func (d *Decoder) delta(idx int, typ, text, thinking, signature, partial string, out []llm.Event) []llm.Event {
	switch typ {
	case "text_delta":
		return d.text(idx, text, out)
	case "thinking_delta":
		return d.thinking(idx, thinking, out)
	case "signature_delta":
		b := d.block(idx)
		b.signature = append(b.signature, signature...)
	case "input_json_delta":
		if b := d.block(idx); b.open && b.kind == "tool_use" && partial != "" {
			out = append(out, llm.Event{Kind: llm.EventToolCallArgumentsDelta, Index: idx, Text: partial})
		}
	}
	return out
}

func (d *Decoder) blockStop(idx int, out []llm.Event) []llm.Event {
	b := d.blocks[idx]
	if b == nil || !b.open {
		return out
	}
	b.open = false
	switch b.kind {
	case "text":
		out = append(out, llm.Event{Kind: llm.EventTextEnd, Index: idx})
	case "thinking":
		out = append(out, llm.Event{Kind: llm.EventThinkingEnd, Index: idx, Text: string(b.signature)})
	case "tool_use":
		out = append(out, llm.Event{Kind: llm.EventToolCallEnd, Index: idx})
	}
	return out
}
