package anthropic

import (
	"encoding/json"

	"keygate/adapters/provider/wire"
	"keygate/domain/llm"
)

// Reply re-encodes a model call's events as a Messages answer: server-sent
// events when the caller streams, else one message object at the end.
// Text and thinking stream as they come; a tool call is written whole when
// it ends (Messages blocks never interleave, other protocols' calls may).
// A thinking block carries the signature its provider gave it. Usage is
// the target's, in Messages' shape (input without cached tokens). It is
// used by one goroutine.
type Reply struct {
	stream    bool
	id, model string
	started   bool
	next      int    // index of the next block
	open      string // "text" or "thinking" while a streamed block is open
	calls     map[int]*replyCall
	content   []json.RawMessage // the message's blocks, for a whole answer
	text      []byte            // the open block's text, for a whole answer
	usage     llm.Usage
	finish    llm.FinishReason
}

type replyCall struct {
	id, name string
	args     []byte
}

// NewReply returns the Reply of a call for model; stream says whether the
// caller asked for events; id is the message id.
func NewReply(id, model string, stream bool) *Reply {
	return &Reply{stream: stream, id: id, model: model, calls: map[int]*replyCall{}}
}

// ContentType is the Content-Type of the answer.
func (r *Reply) ContentType() string {
	if r.stream {
		return "text/event-stream"
	}
	return "application/json"
}

func frame(dst []byte, event string, w *wire.Writer) []byte {
	dst = append(dst, "event: "...)
	dst = append(dst, event...)
	dst = append(dst, "\ndata: "...)
	dst = append(dst, w.B...)
	return append(dst, "\n\n"...)
}

// Start appends what opens the answer (message_start when streaming).
func (r *Reply) Start(dst []byte) []byte {
	if !r.stream || r.started {
		return dst
	}
	r.started = true
	var w wire.Writer
	w.BeginObject()
	w.StringField("type", "message_start")
	w.Key("message")
	r.messageHead(&w)
	w.Key("content")
	w.BeginArray()
	w.EndArray()
	w.Key("stop_reason")
	w.Null()
	w.Key("stop_sequence")
	w.Null()
	w.Key("usage")
	w.BeginObject()
	w.Key("input_tokens")
	w.Int(0)
	w.Key("output_tokens")
	w.Int(0)
	w.EndObject()
	w.EndObject()
	w.EndObject()
	return frame(dst, "message_start", &w)
}

func (r *Reply) messageHead(w *wire.Writer) {
	w.BeginObject()
	w.StringField("id", r.id)
	w.StringField("type", "message")
	w.StringField("role", "assistant")
	w.StringField("model", r.model)
}

// Event appends the answer's bytes for ev.
func (r *Reply) Event(dst []byte, ev llm.Event) []byte {
	dst = r.Start(dst)
	switch ev.Kind {
	case llm.EventTextDelta:
		dst = r.delta(dst, "text", ev.Text)
	case llm.EventThinkingDelta:
		dst = r.delta(dst, "thinking", ev.Text)
	case llm.EventTextEnd:
		if r.open == "text" {
			dst = r.closeBlock(dst, "")
		}
	case llm.EventThinkingStart:
		dst = r.delta(dst, "thinking", "")
	case llm.EventThinkingEnd:
		if r.open == "thinking" {
			dst = r.closeBlock(dst, ev.Text)
		}
	case llm.EventToolCallStart:
		r.calls[ev.Index] = &replyCall{id: ev.CallID, name: ev.Name}
	case llm.EventToolCallArgumentsDelta:
		if c := r.calls[ev.Index]; c != nil {
			c.args = append(c.args, ev.Text...)
		}
	case llm.EventToolCallEnd:
		if c := r.calls[ev.Index]; c != nil {
			delete(r.calls, ev.Index)
			dst = r.call(dst, c)
		}
	case llm.EventUsage:
		if ev.Usage != nil {
			r.usage = *ev.Usage
		}
	case llm.EventDone:
		r.finish = ev.Finish
	}
	return dst
}

// delta adds text to a streamed block of kind, opening it (and closing
// another) first.
func (r *Reply) delta(dst []byte, kind, text string) []byte {
	if r.open != kind {
		if r.open != "" {
			dst = r.closeBlock(dst, "")
		}
		r.open = kind
		if r.stream {
			var w wire.Writer
			w.BeginObject()
			w.StringField("type", "content_block_start")
			w.Key("index")
			w.Int(int64(r.next))
			w.Key("content_block")
			w.BeginObject()
			w.StringField("type", kind)
			w.StringField(kind, "")
			if kind == "thinking" {
				w.StringField("signature", "")
			}
			w.EndObject()
			w.EndObject()
			dst = frame(dst, "content_block_start", &w)
		}
	}
	if text == "" {
		return dst
	}
	if !r.stream {
		r.text = append(r.text, text...)
		return dst
	}
	var w wire.Writer
	w.BeginObject()
	w.StringField("type", "content_block_delta")
	w.Key("index")
	w.Int(int64(r.next))
	w.Key("delta")
	w.BeginObject()
	w.StringField("type", kind+"_delta")
	w.StringField(kind, text)
	w.EndObject()
	w.EndObject()
	return frame(dst, "content_block_delta", &w)
}

// closeBlock ends the open streamed block; signature is a thinking
// block's.
func (r *Reply) closeBlock(dst []byte, signature string) []byte {
	kind := r.open
	r.open = ""
	if !r.stream {
		var w wire.Writer
		w.BeginObject()
		w.StringField("type", kind)
		w.StringField(kind, string(r.text))
		if kind == "thinking" {
			w.StringField("signature", signature)
		}
		w.EndObject()
		r.content = append(r.content, w.B)
		r.text = r.text[:0]
		r.next++
		return dst
	}
	if kind == "thinking" && signature != "" {
		var w wire.Writer
		w.BeginObject()
		w.StringField("type", "content_block_delta")
		w.Key("index")
		w.Int(int64(r.next))
		w.Key("delta")
		w.BeginObject()
		w.StringField("type", "signature_delta")
		w.StringField("signature", signature)
		w.EndObject()
		w.EndObject()
		dst = frame(dst, "content_block_delta", &w)
	}
	dst = r.stop(dst)
	return dst
}

func (r *Reply) stop(dst []byte) []byte {
	var w wire.Writer
	w.BeginObject()
	w.StringField("type", "content_block_stop")
	w.Key("index")
	w.Int(int64(r.next))
	w.EndObject()
	r.next++
	return frame(dst, "content_block_stop", &w)
}

// call writes one whole tool_use block.
func (r *Reply) call(dst []byte, c *replyCall) []byte {
	if r.open != "" {
		dst = r.closeBlock(dst, "")
	}
	args := c.args
	if len(args) == 0 || !json.Valid(args) {
		args = []byte("{}")
	}
	if !r.stream {
		var w wire.Writer
		w.BeginObject()
		w.StringField("type", "tool_use")
		w.StringField("id", c.id)
		w.StringField("name", c.name)
		w.Key("input")
		_ = w.Raw(args)
		w.EndObject()
		r.content = append(r.content, w.B)
		r.next++
		return dst
	}
	var w wire.Writer
	w.BeginObject()
	w.StringField("type", "content_block_start")
	w.Key("index")
	w.Int(int64(r.next))
	w.Key("content_block")
	w.BeginObject()
	w.StringField("type", "tool_use")
	w.StringField("id", c.id)
	w.StringField("name", c.name)
	w.Key("input")
	w.BeginObject()
	w.EndObject()
	w.EndObject()
	w.EndObject()
	dst = frame(dst, "content_block_start", &w)
	w = wire.Writer{}
	w.BeginObject()
	w.StringField("type", "content_block_delta")
	w.Key("index")
	w.Int(int64(r.next))
	w.Key("delta")
	w.BeginObject()
	w.StringField("type", "input_json_delta")
	w.StringField("partial_json", string(args))
	w.EndObject()
	w.EndObject()
	dst = frame(dst, "content_block_delta", &w)
	return r.stop(dst)
}

func stopReason(f llm.FinishReason) string {
	switch f {
	case llm.FinishLength:
		return "max_tokens"
	case llm.FinishToolUse:
		return "tool_use"
	case llm.FinishContentFilter:
		return "refusal"
	default:
		return "end_turn"
	}
}

func (r *Reply) writeUsage(w *wire.Writer) {
	w.BeginObject()
	w.Key("input_tokens")
	w.Int(r.usage.Input)
	w.Key("cache_creation_input_tokens")
	w.Int(r.usage.CacheWrite)
	w.Key("cache_read_input_tokens")
	w.Int(r.usage.CacheRead)
	w.Key("output_tokens")
	w.Int(r.usage.Output)
	w.EndObject()
}

// Finish appends the end of a complete answer: message_delta and
// message_stop when streaming, else the whole message.
func (r *Reply) Finish(dst []byte) []byte {
	dst = r.Start(dst)
	if r.open != "" {
		dst = r.closeBlock(dst, "")
	}
	var w wire.Writer
	if !r.stream {
		r.messageHead(&w)
		w.Key("content")
		w.BeginArray()
		for _, c := range r.content {
			_ = w.Raw(c)
		}
		w.EndArray()
		w.StringField("stop_reason", stopReason(r.finish))
		w.Key("stop_sequence")
		w.Null()
		w.Key("usage")
		r.writeUsage(&w)
		w.EndObject()
		return append(dst, w.B...)
	}
	w.BeginObject()
	w.StringField("type", "message_delta")
	w.Key("delta")
	w.BeginObject()
	w.StringField("stop_reason", stopReason(r.finish))
	w.Key("stop_sequence")
	w.Null()
	w.EndObject()
	w.Key("usage")
	r.writeUsage(&w)
	w.EndObject()
	dst = frame(dst, "message_delta", &w)
	w = wire.Writer{}
	w.BeginObject()
	w.StringField("type", "message_stop")
	w.EndObject()
	return frame(dst, "message_stop", &w)
}

// AppendError appends a Messages error body ({"type":"error","error":
// {"type":…,"message":…}}) of the given error type.
func AppendError(dst []byte, typ, message string) []byte {
	var w wire.Writer
	w.BeginObject()
	w.StringField("type", "error")
	w.Key("error")
	w.BeginObject()
	w.StringField("type", typ)
	w.StringField("message", message)
	w.EndObject()
	w.EndObject()
	return append(dst, w.B...)
}

// Fail appends the error that ends a stream already under way (an error
// event); for a whole answer, the error body.
func (r *Reply) Fail(dst []byte, typ, message string) []byte {
	if !r.stream {
		return AppendError(dst, typ, message)
	}
	dst = append(dst, "event: error\ndata: "...)
	dst = AppendError(dst, typ, message)
	return append(dst, "\n\n"...)
}
