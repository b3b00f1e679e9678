package providertest

import (
	"strconv"

	"keygate/adapters/provider/wire"
)

// ChatSSE renders t as a Chat Completions stream: data-only events, a role
// chunk, reasoning_content deltas, content deltas, tool call fragments (id
// and name only in the first), the finish chunk, a usage chunk with empty
// choices and [DONE]. This follows the streaming section of OpenAI's Chat
// Completions API reference and the recorded SDK transcripts in testdata.
func ChatSSE(t Turn) []byte {
	id, model := orDefault(t.ID, "chatcmpl-fake"), orDefault(t.Model, "gpt-fake")
	var b []byte
	chunk := func(delta func(w *wire.Writer), finish string, usage bool) {
		var w wire.Writer
		w.BeginObject()
		w.StringField("id", id)
		w.StringField("object", "chat.completion.chunk")
		w.Key("created")
		w.Int(1727346182)
		w.StringField("model", model)
		w.Key("choices")
		w.BeginArray()
		if delta != nil {
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
		}
		w.EndArray()
		if usage {
			u := t.Usage
			w.Key("usage")
			w.BeginObject()
			w.Key("prompt_tokens")
			w.Int(u.Input + u.CacheRead)
			w.Key("completion_tokens")
			w.Int(u.Output)
			w.Key("total_tokens")
			w.Int(u.Input + u.CacheRead + u.Output)
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
		w.EndObject()
		b = append(b, "data: "...)
		b = append(b, w.B...)
		b = append(b, "\n\n"...)
	}
	chunk(func(w *wire.Writer) { w.StringField("role", "assistant"); w.StringField("content", "") }, "", false)
	for _, d := range t.Thinking {
		chunk(func(w *wire.Writer) { w.StringField("reasoning_content", d) }, "", false)
	}
	for _, d := range t.Text {
		chunk(func(w *wire.Writer) { w.StringField("content", d) }, "", false)
	}
	for i, c := range t.Calls {
		args := c.Arguments
		if len(args) == 0 {
			args = []string{""}
		}
		for j, a := range args {
			chunk(func(w *wire.Writer) {
				w.Key("tool_calls")
				w.BeginArray()
				w.BeginObject()
				w.Key("index")
				w.Int(int64(i))
				if j == 0 {
					w.StringField("id", c.ID)
					w.StringField("type", "function")
				}
				w.Key("function")
				w.BeginObject()
				if j == 0 {
					w.StringField("name", c.Name)
				}
				w.StringField("arguments", a)
				w.EndObject()
				w.EndObject()
				w.EndArray()
			}, "", false)
		}
	}
	finish := t.Finish
	if finish == "" {
		finish = "stop"
		if len(t.Calls) > 0 {
			finish = "tool_calls"
		}
	}
	chunk(func(*wire.Writer) {}, finish, false)
	chunk(nil, "", true)
	return append(b, "data: [DONE]\n\n"...)
}

// ChatError renders an in-band error chunk as OpenAI-compatible servers send
// it under HTTP 200.
func ChatError(code, message string) []byte {
	var w wire.Writer
	w.BeginObject()
	w.Key("error")
	w.BeginObject()
	w.StringField("message", message)
	w.StringField("type", code)
	w.StringField("code", code)
	w.EndObject()
	w.EndObject()
	return append(append([]byte("data: "), w.B...), "\n\n"...)
}

func orDefault(s, def string) string {
	if s == "" {
		return def
	}
	return s
}

func itoa(n int) string { return strconv.Itoa(n) }
