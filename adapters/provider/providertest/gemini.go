package providertest

import (
	"strings"

	"keygate/adapters/provider/wire"
)

// GeminiSSE renders t as a Gemini streamGenerateContent?alt=sse stream:
// data-only events, each a GenerateContentResponse with one candidate, the
// running usageMetadata, modelVersion and responseId. Thinking deltas are
// thought parts, text deltas text parts, each call one whole functionCall
// part (Gemini never streams arguments in fragments; the fragments are
// joined, and the call's ID is not sent: Gemini has none). Signature is the
// thoughtSignature of the first call, or of the last text part when there
// is no call. The last event carries finishReason (STOP unless t.Finish
// says otherwise; Gemini ends a turn with calls with STOP too) and the
// final usage. This follows the REST reference of models.streamGenerateContent
// and the "Thought signatures" page of Google's Gemini API documentation.
func GeminiSSE(t Turn) []byte {
	id, model := orDefault(t.ID, "resp_fake"), orDefault(t.Model, "gemini-fake")
	u := t.Usage
	var b []byte
	emit := func(parts func(w *wire.Writer), finish string, final bool) {
		var w wire.Writer
		w.BeginObject()
		w.Key("candidates")
		w.BeginArray()
		w.BeginObject()
		w.Key("content")
		w.BeginObject()
		w.Key("parts")
		w.BeginArray()
		parts(&w)
		w.EndArray()
		w.StringField("role", "model")
		w.EndObject()
		if finish != "" {
			w.StringField("finishReason", finish)
		}
		w.Key("index")
		w.Int(0)
		w.EndObject()
		w.EndArray()
		w.Key("usageMetadata")
		w.BeginObject()
		w.Key("promptTokenCount")
		w.Int(u.Input + u.CacheRead + u.CacheWrite)
		out := u.Output - u.Reasoning
		if !final {
			out = 0
		}
		if final {
			w.Key("candidatesTokenCount")
			w.Int(out)
		}
		w.Key("totalTokenCount")
		if final {
			w.Int(u.Input + u.CacheRead + u.CacheWrite + u.Output)
		} else {
			w.Int(u.Input + u.CacheRead + u.CacheWrite)
		}
		if u.CacheRead > 0 {
			w.Key("cachedContentTokenCount")
			w.Int(u.CacheRead)
		}
		if final && u.Reasoning > 0 {
			w.Key("thoughtsTokenCount")
			w.Int(u.Reasoning)
		}
		w.EndObject()
		w.StringField("modelVersion", model)
		w.StringField("responseId", id)
		w.EndObject()
		b = append(b, "data: "...)
		b = append(b, w.B...)
		b = append(b, "\r\n\r\n"...)
	}
	for _, d := range t.Thinking {
		emit(func(w *wire.Writer) {
			w.BeginObject()
			w.StringField("text", d)
			w.Key("thought")
			w.Bool(true)
			w.EndObject()
		}, "", false)
	}
	for i, d := range t.Text {
		emit(func(w *wire.Writer) {
			w.BeginObject()
			w.StringField("text", d)
			if i == len(t.Text)-1 && len(t.Calls) == 0 && t.Signature != "" {
				w.StringField("thoughtSignature", t.Signature)
			}
			w.EndObject()
		}, "", false)
	}
	for i, c := range t.Calls {
		emit(func(w *wire.Writer) {
			w.BeginObject()
			w.Key("functionCall")
			w.BeginObject()
			w.StringField("name", c.Name)
			w.Key("args")
			args := strings.Join(c.Arguments, "")
			if args == "" || w.Raw([]byte(args)) != nil {
				w.BeginObject()
				w.EndObject()
			}
			w.EndObject()
			if i == 0 && t.Signature != "" {
				w.StringField("thoughtSignature", t.Signature)
			}
			w.EndObject()
		}, "", false)
	}
	finish := orDefault(t.Finish, "STOP")
	emit(func(w *wire.Writer) {
		w.BeginObject()
		w.StringField("text", "")
		w.EndObject()
	}, finish, true)
	return b
}

// GeminiError renders Google's error object as a 200 stream's last event,
// as the Gemini API sends a failure after the stream began.
func GeminiError(code int, status, message string) []byte {
	var w wire.Writer
	w.BeginObject()
	w.Key("error")
	w.BeginObject()
	w.Key("code")
	w.Int(int64(code))
	w.StringField("message", message)
	w.StringField("status", status)
	w.EndObject()
	w.EndObject()
	return append(append([]byte("data: "), w.B...), "\r\n\r\n"...)
}
