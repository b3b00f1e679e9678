package providertest

import "keygate/adapters/provider/wire"

// AnthropicSSE renders t as a Messages stream: message_start with input and
// cache usage, a ping, a thinking block with its signature_delta, a text
// block, one tool_use block per call with input_json_delta fragments,
// message_delta with the stop reason and cumulative output tokens, and
// message_stop. This follows the "Streaming Messages" page of Anthropic's API
// documentation (see testdata/anthropic-*.sse for the SDK transcripts).
func AnthropicSSE(t Turn) []byte {
	id, model := orDefault(t.ID, "msg_fake"), orDefault(t.Model, "claude-fake")
	var b []byte
	emit := func(typ string, fields func(w *wire.Writer)) {
		var w wire.Writer
		w.BeginObject()
		w.StringField("type", typ)
		fields(&w)
		w.EndObject()
		b = appendEvent(b, typ, w.B)
	}
	u := t.Usage
	emit("message_start", func(w *wire.Writer) {
		w.Key("message")
		w.BeginObject()
		w.StringField("id", id)
		w.StringField("type", "message")
		w.StringField("role", "assistant")
		w.Key("content")
		w.BeginArray()
		w.EndArray()
		w.StringField("model", model)
		w.Key("stop_reason")
		w.Null()
		w.Key("usage")
		w.BeginObject()
		w.Key("input_tokens")
		w.Int(u.Input)
		w.Key("cache_creation_input_tokens")
		w.Int(u.CacheWrite)
		w.Key("cache_read_input_tokens")
		w.Int(u.CacheRead)
		w.Key("output_tokens")
		w.Int(1)
		w.EndObject()
		w.EndObject()
	})
	b = appendEvent(b, "ping", []byte(`{"type": "ping"}`))
	index := 0
	block := func(start func(w *wire.Writer), deltas []string, deltaType, field string, extra func()) {
		emit("content_block_start", func(w *wire.Writer) {
			w.Key("index")
			w.Int(int64(index))
			w.Key("content_block")
			w.BeginObject()
			start(w)
			w.EndObject()
		})
		for _, d := range deltas {
			emit("content_block_delta", func(w *wire.Writer) {
				w.Key("index")
				w.Int(int64(index))
				w.Key("delta")
				w.BeginObject()
				w.StringField("type", deltaType)
				w.StringField(field, d)
				w.EndObject()
			})
		}
		if extra != nil {
			extra()
		}
		emit("content_block_stop", func(w *wire.Writer) { w.Key("index"); w.Int(int64(index)) })
		index++
	}
	if len(t.Thinking) > 0 {
		block(func(w *wire.Writer) {
			w.StringField("type", "thinking")
			w.StringField("thinking", "")
			w.StringField("signature", "")
		}, t.Thinking, "thinking_delta", "thinking", func() {
			emit("content_block_delta", func(w *wire.Writer) {
				w.Key("index")
				w.Int(int64(index))
				w.Key("delta")
				w.BeginObject()
				w.StringField("type", "signature_delta")
				w.StringField("signature", t.Signature)
				w.EndObject()
			})
		})
	}
	if len(t.Text) > 0 {
		block(func(w *wire.Writer) { w.StringField("type", "text"); w.StringField("text", "") },
			t.Text, "text_delta", "text", nil)
	}
	for _, c := range t.Calls {
		block(func(w *wire.Writer) {
			w.StringField("type", "tool_use")
			w.StringField("id", c.ID)
			w.StringField("name", c.Name)
			w.Key("input")
			w.BeginObject()
			w.EndObject()
		}, c.Arguments, "input_json_delta", "partial_json", nil)
	}
	stop := t.Finish
	if stop == "" {
		stop = "end_turn"
		if len(t.Calls) > 0 {
			stop = "tool_use"
		}
	}
	emit("message_delta", func(w *wire.Writer) {
		w.Key("delta")
		w.BeginObject()
		w.StringField("stop_reason", stop)
		w.Key("stop_sequence")
		w.Null()
		w.EndObject()
		w.Key("usage")
		w.BeginObject()
		w.Key("output_tokens")
		w.Int(u.Output)
		w.EndObject()
	})
	emit("message_stop", func(*wire.Writer) {})
	return b
}

// AnthropicError renders an in-band error event (for example
// "overloaded_error") as Anthropic sends it under HTTP 200.
func AnthropicError(typ, message string) []byte {
	var w wire.Writer
	w.BeginObject()
	w.StringField("type", "error")
	w.Key("error")
	w.BeginObject()
	w.StringField("type", typ)
	w.StringField("message", message)
	w.EndObject()
	w.EndObject()
	return appendEvent(nil, "error", w.B)
}
