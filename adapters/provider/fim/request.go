package fim

import (
	"fmt"
	"math"

	"keygate/adapters/provider/protocol"
	"keygate/adapters/provider/wire"
	"keygate/domain/llm"
)

// DefaultMaxTokens is sent when the request names no cap: OpenAI's
// completions default is 16 tokens, too few for an edit prediction, and a
// FIM answer is short, so a small cap also bounds a runaway completion.
const DefaultMaxTokens = 512

// AppendCompletions appends the completions body of a fill-in-the-middle
// request to dst.
//
// Field order: model, prompt, suffix, max_tokens, temperature (when set),
// stop (when set), stream, stream_options (usage on the last chunk), then
// configured extras.
func AppendCompletions(dst []byte, req llm.Request, o protocol.RequestOptions) ([]byte, error) {
	return appendBody(dst, req, o, completionsLabel, true)
}

// AppendMistral appends the Mistral FIM body of a fill-in-the-middle
// request to dst: the completions body without stream_options (Mistral
// always sends usage on the last chunk).
func AppendMistral(dst []byte, req llm.Request, o protocol.RequestOptions) ([]byte, error) {
	return appendBody(dst, req, o, mistralLabel, false)
}

func appendBody(dst []byte, req llm.Request, o protocol.RequestOptions, label string, streamOptions bool) ([]byte, error) {
	if err := protocol.RequireFillIn(label, req); err != nil {
		return dst, err
	}
	f := req.FillIn
	if t := f.Temperature; t != nil && (math.IsNaN(*t) || math.IsInf(*t, 0)) {
		return dst, fmt.Errorf("%s: temperature %v is not a number JSON can carry", label, *t)
	}
	w := wire.Writer{B: dst}
	w.BeginObject()
	w.StringField("model", req.Model)
	w.StringField("prompt", f.Prefix)
	w.StringField("suffix", f.Suffix)
	if w.Field(o.Extras, "max_tokens") {
		n := req.MaxOutputTokens
		if n <= 0 {
			n = DefaultMaxTokens
		}
		w.Int(int64(n))
	}
	if f.Temperature != nil && w.Field(o.Extras, "temperature") {
		w.Float(*f.Temperature)
	}
	if len(f.Stop) > 0 && w.Field(o.Extras, "stop") {
		w.BeginArray()
		for _, s := range f.Stop {
			w.String(s)
		}
		w.EndArray()
	}
	w.Key("stream")
	w.Bool(true)
	if streamOptions && w.Field(o.Extras, "stream_options") {
		w.BeginObject()
		w.Key("include_usage")
		w.Bool(true)
		w.EndObject()
	}
	w.Rest(o.Extras)
	w.EndObject()
	return w.B, nil
}
