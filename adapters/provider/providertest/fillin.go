package providertest

import (
	"keygate/adapters/provider/wire"
	"keygate/domain/llm"
)

// FillInRequest is a fill-in-the-middle request as Cursor Tab makes one:
// the code before and after the cursor, stop at a blank line, temperature
// 0 and a small cap.
func FillInRequest(model string) llm.Request {
	zero := 0.0
	return llm.Request{Model: model, MaxOutputTokens: 64, FillIn: &llm.FillIn{
		Prefix:      "def add(a, b):\n    \"\"\"Return a + b.\"\"\"\n    return ",
		Suffix:      "\n\n\nprint(add(1, 2))  # <3>\n",
		Stop:        []string{"\n\n", "\ndef "},
		Temperature: &zero,
	}}
}

// CompletionsSSE renders t as an OpenAI completions stream (the
// fill-in-the-middle protocol openai_completions): one text_completion
// chunk per Text delta, a finish chunk with empty text (as vLLM and
// DeepSeek send it), a usage chunk with empty choices (include_usage) and
// [DONE]. This follows CreateCompletionResponse of OpenAI's API reference,
// whose streamed chunks share the shape of the whole response.
func CompletionsSSE(t Turn) []byte {
	id, model := orDefault(t.ID, "cmpl-fake"), orDefault(t.Model, "fim-fake")
	var b []byte
	chunk := func(text, finish string, usage bool) {
		var w wire.Writer
		w.BeginObject()
		w.StringField("id", id)
		w.StringField("object", "text_completion")
		w.Key("created")
		w.Int(1727346182)
		w.StringField("model", model)
		w.Key("choices")
		w.BeginArray()
		if !usage {
			w.BeginObject()
			w.StringField("text", text)
			w.Key("index")
			w.Int(0)
			w.Key("logprobs")
			w.Null()
			w.Key("finish_reason")
			nullOr(&w, finish)
			w.EndObject()
		}
		w.EndArray()
		w.Key("usage")
		if usage {
			writeFillInUsage(&w, t.Usage)
		} else {
			w.Null()
		}
		w.EndObject()
		b = appendData(b, w.B)
	}
	for _, text := range t.Text {
		chunk(text, "", false)
	}
	chunk("", orDefault(t.Finish, "stop"), false)
	chunk("", "", true)
	return appendData(b, []byte("[DONE]"))
}

// MistralSSE renders t as a Mistral FIM stream: chat-completion chunks
// with the text in choices[0].delta.content, the last one carrying
// finish_reason and usage, then [DONE].
func MistralSSE(t Turn) []byte {
	id, model := orDefault(t.ID, "fim-fake-id"), orDefault(t.Model, "codestral-latest")
	var b []byte
	chunk := func(text, finish string) {
		var w wire.Writer
		w.BeginObject()
		w.StringField("id", id)
		w.StringField("object", "chat.completion.chunk")
		w.Key("created")
		w.Int(1727346182)
		w.StringField("model", model)
		w.Key("choices")
		w.BeginArray()
		w.BeginObject()
		w.Key("index")
		w.Int(0)
		w.Key("delta")
		w.BeginObject()
		w.StringField("content", text)
		w.EndObject()
		w.Key("finish_reason")
		nullOr(&w, finish)
		w.EndObject()
		w.EndArray()
		if finish != "" {
			w.Key("usage")
			writeFillInUsage(&w, t.Usage)
		}
		w.EndObject()
		b = appendData(b, w.B)
	}
	for _, text := range t.Text {
		chunk(text, "")
	}
	chunk("", orDefault(t.Finish, "stop"))
	return appendData(b, []byte("[DONE]"))
}

func nullOr(w *wire.Writer, s string) {
	if s == "" {
		w.Null()
		return
	}
	w.String(s)
}

func writeFillInUsage(w *wire.Writer, u Usage) {
	w.BeginObject()
	w.Key("prompt_tokens")
	w.Int(u.Input + u.CacheRead)
	w.Key("completion_tokens")
	w.Int(u.Output)
	w.Key("total_tokens")
	w.Int(u.Input + u.CacheRead + u.Output)
	if u.CacheRead > 0 {
		w.Key("prompt_tokens_details")
		w.BeginObject()
		w.Key("cached_tokens")
		w.Int(u.CacheRead)
		w.EndObject()
	}
	w.EndObject()
}

func appendData(b, data []byte) []byte {
	b = append(b, "data: "...)
	b = append(b, data...)
	return append(b, "\n\n"...)
}
