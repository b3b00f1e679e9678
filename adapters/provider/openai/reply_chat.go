package openai

import (
	"encoding/json"

	"keygate/adapters/provider/wire"
	"keygate/domain/llm"
)

// ChatReply re-encodes a model call's events as a Chat Completions answer:
// chunks when the caller streams (a usage chunk when it asked with
// stream_options.include_usage), else one completion at the end. Thinking
// is reasoning_content. Usage is the target's, in Chat's shape (prompt
// tokens include cached ones). It is used by one goroutine.
type ChatReply struct {
	stream, usage bool
	id, model     string
	created       int64
	started       bool
	calls         map[int]int // event index to the answer's tool call index
	text, think   []byte
	callsOut      []*replyCall
	u             llm.Usage
	finish        llm.FinishReason
}

type replyCall struct {
	id, name string
	args     []byte
}

// NewChatReply returns the reply of a call; streamUsage is the caller's
// stream_options.include_usage; created is the Unix time of the answer.
func NewChatReply(id, model string, created int64, stream, streamUsage bool) *ChatReply {
	return &ChatReply{stream: stream, usage: streamUsage, id: id, model: model, created: created, calls: map[int]int{}}
}

// ContentType is the Content-Type of the answer.
func (r *ChatReply) ContentType() string {
	if r.stream {
		return "text/event-stream"
	}
	return "application/json"
}

func (r *ChatReply) chunk(dst []byte, delta func(w *wire.Writer), finish string) []byte {
	var w wire.Writer
	w.BeginObject()
	w.StringField("id", r.id)
	w.StringField("object", "chat.completion.chunk")
	w.Key("created")
	w.Int(r.created)
	w.StringField("model", r.model)
	w.Key("choices")
	w.BeginArray()
	w.BeginObject()
	w.Key("index")
	w.Int(0)
	w.Key("delta")
	w.BeginObject()
	delta(&w)
	w.EndObject()
	w.Key("finish_reason")
	if finish == "" {
		w.Null()
	} else {
		w.String(finish)
	}
	w.EndObject()
	w.EndArray()
	w.EndObject()
	return dataLine(dst, w.B)
}

func dataLine(dst, b []byte) []byte {
	dst = append(dst, "data: "...)
	dst = append(dst, b...)
	return append(dst, "\n\n"...)
}

// Start appends the first chunk (the assistant role) when streaming.
func (r *ChatReply) Start(dst []byte) []byte {
	if !r.stream || r.started {
		return dst
	}
	r.started = true
	return r.chunk(dst, func(w *wire.Writer) {
		w.StringField("role", "assistant")
		w.StringField("content", "")
	}, "")
}

// Event appends the answer's bytes for ev.
func (r *ChatReply) Event(dst []byte, ev llm.Event) []byte {
	dst = r.Start(dst)
	switch ev.Kind {
	case llm.EventTextDelta:
		if !r.stream {
			r.text = append(r.text, ev.Text...)
			return dst
		}
		return r.chunk(dst, func(w *wire.Writer) { w.StringField("content", ev.Text) }, "")
	case llm.EventThinkingDelta:
		if !r.stream {
			r.think = append(r.think, ev.Text...)
			return dst
		}
		return r.chunk(dst, func(w *wire.Writer) { w.StringField("reasoning_content", ev.Text) }, "")
	case llm.EventToolCallStart:
		n := len(r.callsOut)
		r.calls[ev.Index] = n
		r.callsOut = append(r.callsOut, &replyCall{id: ev.CallID, name: ev.Name})
		if r.stream {
			return r.chunk(dst, func(w *wire.Writer) {
				w.Key("tool_calls")
				w.BeginArray()
				w.BeginObject()
				w.Key("index")
				w.Int(int64(n))
				w.StringField("id", ev.CallID)
				w.StringField("type", "function")
				w.Key("function")
				w.BeginObject()
				w.StringField("name", ev.Name)
				w.StringField("arguments", "")
				w.EndObject()
				w.EndObject()
				w.EndArray()
			}, "")
		}
	case llm.EventToolCallArgumentsDelta:
		n, ok := r.calls[ev.Index]
		if !ok {
			return dst
		}
		if !r.stream {
			r.callsOut[n].args = append(r.callsOut[n].args, ev.Text...)
			return dst
		}
		return r.chunk(dst, func(w *wire.Writer) {
			w.Key("tool_calls")
			w.BeginArray()
			w.BeginObject()
			w.Key("index")
			w.Int(int64(n))
			w.Key("function")
			w.BeginObject()
			w.StringField("arguments", ev.Text)
			w.EndObject()
			w.EndObject()
			w.EndArray()
		}, "")
	case llm.EventUsage:
		if ev.Usage != nil {
			r.u = *ev.Usage
		}
	case llm.EventDone:
		r.finish = ev.Finish
	}
	return dst
}

func finishReason(f llm.FinishReason) string {
	switch f {
	case llm.FinishLength:
		return "length"
	case llm.FinishToolUse:
		return "tool_calls"
	case llm.FinishContentFilter:
		return "content_filter"
	default:
		return "stop"
	}
}

// writeChatUsage writes usage in Chat's shape.
func writeChatUsage(w *wire.Writer, u llm.Usage) {
	prompt := u.Input + u.CacheRead + u.CacheWrite
	w.BeginObject()
	w.Key("prompt_tokens")
	w.Int(prompt)
	w.Key("completion_tokens")
	w.Int(u.Output)
	w.Key("total_tokens")
	w.Int(prompt + u.Output)
	w.Key("prompt_tokens_details")
	w.BeginObject()
	w.Key("cached_tokens")
	w.Int(u.CacheRead)
	w.EndObject()
	w.Key("completion_tokens_details")
	w.BeginObject()
	w.Key("reasoning_tokens")
	w.Int(u.Reasoning)
	w.EndObject()
	w.EndObject()
}

// Finish appends the end of a complete answer.
func (r *ChatReply) Finish(dst []byte) []byte {
	if r.stream {
		dst = r.Start(dst)
		dst = r.chunk(dst, func(*wire.Writer) {}, finishReason(r.finish))
		if r.usage {
			var w wire.Writer
			w.BeginObject()
			w.StringField("id", r.id)
			w.StringField("object", "chat.completion.chunk")
			w.Key("created")
			w.Int(r.created)
			w.StringField("model", r.model)
			w.Key("choices")
			w.BeginArray()
			w.EndArray()
			w.Key("usage")
			writeChatUsage(&w, r.u)
			w.EndObject()
			dst = dataLine(dst, w.B)
		}
		return append(dst, "data: [DONE]\n\n"...)
	}
	var w wire.Writer
	w.BeginObject()
	w.StringField("id", r.id)
	w.StringField("object", "chat.completion")
	w.Key("created")
	w.Int(r.created)
	w.StringField("model", r.model)
	w.Key("choices")
	w.BeginArray()
	w.BeginObject()
	w.Key("index")
	w.Int(0)
	w.Key("message")
	w.BeginObject()
	w.StringField("role", "assistant")
	w.Key("content")
	if len(r.text) == 0 && len(r.callsOut) > 0 {
		w.Null()
	} else {
		w.String(string(r.text))
	}
	if len(r.think) > 0 {
		w.StringField("reasoning_content", string(r.think))
	}
	if len(r.callsOut) > 0 {
		w.Key("tool_calls")
		w.BeginArray()
		for _, c := range r.callsOut {
			w.BeginObject()
			w.StringField("id", c.id)
			w.StringField("type", "function")
			w.Key("function")
			w.BeginObject()
			w.StringField("name", c.name)
			w.StringField("arguments", string(validArgs(c.args)))
			w.EndObject()
			w.EndObject()
		}
		w.EndArray()
	}
	w.EndObject()
	w.StringField("finish_reason", finishReason(r.finish))
	w.EndObject()
	w.EndArray()
	w.Key("usage")
	writeChatUsage(&w, r.u)
	w.EndObject()
	return append(dst, w.B...)
}

func validArgs(b []byte) []byte {
	if len(b) == 0 || !json.Valid(b) {
		return []byte("{}")
	}
	return b
}

// AppendError appends an OpenAI error body ({"error":{"message","type",
// "code"}}).
func AppendError(dst []byte, typ, code, message string) []byte {
	var w wire.Writer
	w.BeginObject()
	w.Key("error")
	w.BeginObject()
	w.StringField("message", message)
	w.StringField("type", typ)
	w.Key("code")
	if code == "" {
		w.Null()
	} else {
		w.String(code)
	}
	w.Key("param")
	w.Null()
	w.EndObject()
	w.EndObject()
	return append(dst, w.B...)
}

// Fail appends the error that ends a stream already under way (a data
// line holding the error, then [DONE]); for a whole answer, the error body.
func (r *ChatReply) Fail(dst []byte, typ, code, message string) []byte {
	if !r.stream {
		return AppendError(dst, typ, code, message)
	}
	dst = dataLine(dst, AppendError(nil, typ, code, message))
	return append(dst, "data: [DONE]\n\n"...)
}
