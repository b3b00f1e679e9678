package providertest

import "keygate/adapters/provider/wire"

// ResponsesSSE renders t as a Responses stream: named events with
// sequence_number, a reasoning item with its summary, a message item, one
// function_call item per call and response.completed with usage (or
// response.incomplete when Finish is "max_output_tokens"). This follows the
// "Streaming" example and the per-event schemas of OpenAI's Responses API
// reference (see testdata/openai-responses-*.sse).
func ResponsesSSE(t Turn) []byte {
	id, model := orDefault(t.ID, "resp_fake"), orDefault(t.Model, "gpt-fake")
	var b []byte
	seq := 0
	emit := func(typ string, fields func(w *wire.Writer)) {
		var w wire.Writer
		w.BeginObject()
		w.StringField("type", typ)
		fields(&w)
		w.Key("sequence_number")
		w.Int(int64(seq))
		w.EndObject()
		seq++
		b = appendEvent(b, typ, w.B)
	}
	response := func(status string, usage bool) func(w *wire.Writer) {
		return func(w *wire.Writer) {
			w.Key("response")
			w.BeginObject()
			w.StringField("id", id)
			w.StringField("object", "response")
			w.StringField("status", status)
			w.StringField("model", model)
			if status == "incomplete" {
				w.Key("incomplete_details")
				w.BeginObject()
				w.StringField("reason", "max_output_tokens")
				w.EndObject()
			}
			w.Key("output")
			w.BeginArray()
			w.EndArray()
			if usage {
				u := t.Usage
				w.Key("usage")
				w.BeginObject()
				w.Key("input_tokens")
				w.Int(u.Input + u.CacheRead)
				w.Key("input_tokens_details")
				w.BeginObject()
				w.Key("cached_tokens")
				w.Int(u.CacheRead)
				w.EndObject()
				w.Key("output_tokens")
				w.Int(u.Output)
				w.Key("output_tokens_details")
				w.BeginObject()
				w.Key("reasoning_tokens")
				w.Int(u.Reasoning)
				w.EndObject()
				w.Key("total_tokens")
				w.Int(u.Input + u.CacheRead + u.Output)
				w.EndObject()
			}
			w.EndObject()
		}
	}
	emit("response.created", response("in_progress", false))
	out := 0
	if len(t.Thinking) > 0 {
		rs := "rs_" + itoa(out)
		item := func(done bool) func(w *wire.Writer) {
			return func(w *wire.Writer) {
				w.Key("output_index")
				w.Int(int64(out))
				w.Key("item")
				w.BeginObject()
				w.StringField("id", rs)
				w.StringField("type", "reasoning")
				w.Key("summary")
				w.BeginArray()
				if done {
					w.BeginObject()
					w.StringField("type", "summary_text")
					w.StringField("text", joined(t.Thinking))
					w.EndObject()
				}
				w.EndArray()
				if done && t.Signature != "" {
					w.StringField("encrypted_content", t.Signature)
				}
				w.EndObject()
			}
		}
		emit("response.output_item.added", item(false))
		for _, d := range t.Thinking {
			emit("response.reasoning_summary_text.delta", func(w *wire.Writer) {
				w.StringField("item_id", rs)
				w.Key("output_index")
				w.Int(int64(out))
				w.Key("summary_index")
				w.Int(0)
				w.StringField("delta", d)
			})
		}
		emit("response.reasoning_summary_text.done", func(w *wire.Writer) {
			w.StringField("item_id", rs)
			w.Key("output_index")
			w.Int(int64(out))
			w.Key("summary_index")
			w.Int(0)
			w.StringField("text", joined(t.Thinking))
		})
		emit("response.output_item.done", item(true))
		out++
	}
	if len(t.Text) > 0 {
		msg := "msg_" + itoa(out)
		textFields := func(w *wire.Writer) {
			w.StringField("item_id", msg)
			w.Key("output_index")
			w.Int(int64(out))
			w.Key("content_index")
			w.Int(0)
		}
		item := func(status string, text bool) func(w *wire.Writer) {
			return func(w *wire.Writer) {
				w.Key("output_index")
				w.Int(int64(out))
				w.Key("item")
				w.BeginObject()
				w.StringField("id", msg)
				w.StringField("type", "message")
				w.StringField("status", status)
				w.StringField("role", "assistant")
				w.Key("content")
				w.BeginArray()
				if text {
					w.BeginObject()
					w.StringField("type", "output_text")
					w.StringField("text", joined(t.Text))
					w.EndObject()
				}
				w.EndArray()
				w.EndObject()
			}
		}
		emit("response.output_item.added", item("in_progress", false))
		for _, d := range t.Text {
			emit("response.output_text.delta", func(w *wire.Writer) { textFields(w); w.StringField("delta", d) })
		}
		emit("response.output_text.done", func(w *wire.Writer) { textFields(w); w.StringField("text", joined(t.Text)) })
		emit("response.output_item.done", item("completed", true))
		out++
	}
	for _, c := range t.Calls {
		fc := "fc_" + itoa(out)
		item := func(status, args string) func(w *wire.Writer) {
			return func(w *wire.Writer) {
				w.Key("output_index")
				w.Int(int64(out))
				w.Key("item")
				w.BeginObject()
				w.StringField("id", fc)
				w.StringField("type", "function_call")
				w.StringField("status", status)
				w.StringField("arguments", args)
				w.StringField("call_id", c.ID)
				w.StringField("name", c.Name)
				w.EndObject()
			}
		}
		emit("response.output_item.added", item("in_progress", ""))
		for _, a := range c.Arguments {
			emit("response.function_call_arguments.delta", func(w *wire.Writer) {
				w.StringField("item_id", fc)
				w.Key("output_index")
				w.Int(int64(out))
				w.StringField("delta", a)
			})
		}
		emit("response.function_call_arguments.done", func(w *wire.Writer) {
			w.StringField("item_id", fc)
			w.Key("output_index")
			w.Int(int64(out))
			w.StringField("arguments", joined(c.Arguments))
		})
		emit("response.output_item.done", item("completed", joined(c.Arguments)))
		out++
	}
	if t.Finish == "max_output_tokens" {
		emit("response.incomplete", response("incomplete", true))
	} else {
		emit("response.completed", response("completed", true))
	}
	return b
}

// ResponsesError renders the flat in-band error event of the Responses API.
func ResponsesError(code, message string) []byte {
	var w wire.Writer
	w.BeginObject()
	w.StringField("type", "error")
	w.StringField("code", code)
	w.StringField("message", message)
	w.Key("param")
	w.Null()
	w.EndObject()
	return appendEvent(nil, "error", w.B)
}

func appendEvent(b []byte, name string, data []byte) []byte {
	b = append(b, "event: "...)
	b = append(b, name...)
	b = append(b, "\ndata: "...)
	b = append(b, data...)
	return append(b, "\n\n"...)
}
