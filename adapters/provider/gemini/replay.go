package gemini

import (
	"encoding/json"
	"fmt"

	"keygate/adapters/provider/wire"
	"keygate/domain/llm"
)

// signatures are the thought signatures of one model turn, kept in its
// replay state ({"text":…,"calls":[{"index":…,"signature":…}]}).
// Gemini attaches a signature to the part it belongs to (the first
// functionCall of a step, or a text part), so each is kept with the part's
// place and replayed on the same part, byte for byte. Like all replay
// state it goes back only to a protocol of its kind (llm.ReplayState): a
// turn from another protocol replays no signature.
type signatures struct {
	Text  string `json:"text,omitempty"`
	Calls []struct {
		Index     int    `json:"index"`
		Signature string `json:"signature"`
	} `json:"calls,omitempty"`
}

// call returns the signature of the call at index, "" for none.
func (s *signatures) call(index int) string {
	if s == nil {
		return ""
	}
	for _, c := range s.Calls {
		if c.Index == index {
			return c.Signature
		}
	}
	return ""
}

func (s *signatures) text() string {
	if s == nil {
		return ""
	}
	return s.Text
}

// readSignatures returns the signatures of an assistant turn that Gemini
// produced; nil for a turn of another protocol.
func readSignatures(r *llm.ReplayState) (*signatures, error) {
	if r == nil || r.Kind != llm.ProviderGemini {
		return nil, nil
	}
	var s signatures
	if err := json.Unmarshal(r.Value, &s); err != nil {
		return nil, fmt.Errorf("read gemini replay state: %w", err)
	}
	return &s, nil
}

// signedCall is a call's place and signature in a streamed turn.
type signedCall struct {
	index     int
	signature string
}

// appendReplay writes the replay state of a streamed turn; nil when it
// carried no signature.
func appendReplay(text string, calls []signedCall) *llm.ReplayState {
	if text == "" && len(calls) == 0 {
		return nil
	}
	var w wire.Writer
	w.BeginObject()
	if text != "" {
		w.StringField("text", text)
	}
	if len(calls) > 0 {
		w.Key("calls")
		w.BeginArray()
		for _, c := range calls {
			w.BeginObject()
			w.Key("index")
			w.Int(int64(c.index))
			w.StringField("signature", c.signature)
			w.EndObject()
		}
		w.EndArray()
	}
	w.EndObject()
	return &llm.ReplayState{Kind: llm.ProviderGemini, Value: w.B}
}
