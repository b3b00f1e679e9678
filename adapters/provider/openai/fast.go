package openai

import (
	"bytes"

	"keygate/adapters/provider/wire"
	"keygate/domain/llm"
)

// The fast paths below decode the hottest events, token deltas, by picking
// fields with wire.Members instead of encoding/json: one allocation (the
// token's string) instead of a dozen. They return ok false for any other
// event or any shape they do not know, and the caller decodes it in full.

// fastChunk handles a Chat chunk whose only choice carries string deltas
// (content, reasoning, refusal) and no tool calls, finish, usage or error.
func (d *ChatDecoder) fastChunk(data []byte, out []llm.Event) (_ []llm.Event, ok bool) {
	if !d.started {
		return out, false
	}
	var choices []byte
	plain := true
	if wire.Members(data, func(k, v []byte) bool {
		switch string(k) {
		case "choices":
			choices = v
		case "usage", "error":
			plain = wire.IsNull(v)
		}
		return plain
	}) != nil || !plain || choices == nil {
		return out, false
	}
	var ch chatChoice
	n := 0
	if wire.Elements(choices, func(v []byte) bool {
		n++
		plain = n == 1 && fastChoice(v, &ch)
		return plain
	}) != nil || !plain || n != 1 || ch.Index != 0 {
		return out, false
	}
	out, _ = d.choice(&ch, out) // choice fails only on tool calls, which the fast path excludes
	return out, true
}

func fastChoice(v []byte, ch *chatChoice) bool {
	ok := true
	err := wire.Members(v, func(k, v []byte) bool {
		switch string(k) {
		case "index":
			ch.Index, ok = atoi(v)
		case "finish_reason":
			ok = wire.IsNull(v)
		case "delta":
			ok = fastDelta(v, &ch.Delta)
		case "content_filter_results":
			// Azure annotates every chunk; a verdict that flags anything
			// ("filtered": true, "detected": true) takes the full path,
			// which keeps it.
			ok = !bytes.Contains(v, []byte("true"))
		}
		return ok
	})
	return err == nil && ok
}

func fastDelta(v []byte, d *chatDelta) bool {
	ok := true
	err := wire.Members(v, func(k, v []byte) bool {
		var dst *string
		switch string(k) {
		case "content":
			dst = &d.Content
		case "reasoning_content":
			dst = &d.ReasoningContent
		case "reasoning":
			dst = &d.Reasoning
		case "refusal":
			dst = &d.Refusal
		case "role":
			return true
		default: // tool_calls and anything unknown take the full path
			ok = false
			return false
		}
		if wire.IsNull(v) {
			return true
		}
		*dst, ok = str(v)
		return ok
	})
	return err == nil && ok
}

// fastEvent handles the Responses delta events.
func (d *ResponsesDecoder) fastEvent(data []byte, out []llm.Event) (_ []llm.Event, ok bool) {
	if !d.started {
		return out, false
	}
	var typ, index, delta []byte
	if wire.Members(data, func(k, v []byte) bool {
		switch string(k) {
		case "type":
			typ = v
		case "output_index":
			index = v
		case "delta":
			delta = v
		}
		return true
	}) != nil || index == nil || delta == nil {
		return out, false
	}
	idx, ok := atoi(index)
	if !ok {
		return out, false
	}
	text, ok := str(delta)
	if !ok {
		return out, false
	}
	switch string(typ) {
	case `"response.output_text.delta"`, `"response.refusal.delta"`:
		return d.textDelta(idx, text, out), true
	case `"response.reasoning_summary_text.delta"`, `"response.reasoning_text.delta"`:
		return d.thinkingDelta(text, out), true
	case `"response.function_call_arguments.delta"`:
		return d.argsDelta(idx, text, out), true
	}
	return out, false
}

func atoi(v []byte) (int, bool) {
	n, err := wire.Int(v)
	return n, err == nil
}

func str(v []byte) (string, bool) {
	s, err := wire.Str(v)
	return s, err == nil
}
