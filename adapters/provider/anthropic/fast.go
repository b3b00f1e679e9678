package anthropic

import (
	"keygate/adapters/provider/wire"
	"keygate/domain/llm"
)

// fastDelta decodes the hottest event, content_block_delta, by picking its
// fields with wire.Members instead of encoding/json: one allocation (the
// token's string) instead of a dozen. ok is false when the event is anything
// else or has a shape the fast path does not know; the caller then decodes it
// in full.
func (d *Decoder) fastDelta(data []byte, out []llm.Event) (_ []llm.Event, ok bool) {
	if !d.started {
		return out, false
	}
	var typ, index, delta []byte
	if wire.Members(data, func(k, v []byte) bool {
		switch string(k) {
		case "type":
			typ = v
		case "index":
			index = v
		case "delta":
			delta = v
		}
		return true
	}) != nil || string(typ) != `"content_block_delta"` || delta == nil {
		return out, false
	}
	idx, err := wire.Int(index)
	if err != nil {
		return out, false
	}
	var dtype, value []byte
	if wire.Members(delta, func(k, v []byte) bool {
		switch string(k) {
		case "type":
			dtype = v
		case "text", "thinking", "partial_json", "signature":
			value = v
		}
		return true
	}) != nil || value == nil {
		return out, false
	}
	s, err := wire.Str(value)
	if err != nil {
		return out, false
	}
	switch string(dtype) {
	case `"text_delta"`:
		return d.delta(idx, "text_delta", s, "", "", "", out), true
	case `"thinking_delta"`:
		return d.delta(idx, "thinking_delta", "", s, "", "", out), true
	case `"input_json_delta"`:
		return d.delta(idx, "input_json_delta", "", "", "", s, out), true
	case `"signature_delta"`:
		return d.delta(idx, "signature_delta", "", "", s, "", out), true
	}
	return out, false
}
