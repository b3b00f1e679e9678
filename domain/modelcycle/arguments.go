package modelcycle

import (
	"bytes"
	"encoding/json"
	"strings"
)

// ParseArguments turns the argument text a model streamed for tool name into
// the stored arguments and an argument error. It never fails the cycle: a
// malformed argument becomes a tool error the model sees and can correct.
//
//   - empty or whitespace-only text → "{}" and no error;
//   - a JSON object → the text as sent (surrounding whitespace trimmed);
//   - valid JSON that is not an object → "{}" and "<name> arguments must be
//     a JSON object";
//   - invalid JSON → "{}" and "<name> arguments are not valid JSON: <cause>".
func ParseArguments(name, text string) ([]byte, string) {
	trimmed := strings.TrimSpace(text)
	if trimmed == "" {
		return []byte("{}"), ""
	}
	var v any
	dec := json.NewDecoder(strings.NewReader(trimmed))
	dec.UseNumber()
	if err := dec.Decode(&v); err != nil || dec.More() {
		cause := "trailing data"
		if err != nil {
			cause = err.Error()
		}
		return []byte("{}"), name + " arguments are not valid JSON: " + cause
	}
	if _, ok := v.(map[string]any); !ok {
		return []byte("{}"), name + " arguments must be a JSON object"
	}
	return bytes.Clone([]byte(trimmed)), ""
}

// NormalizeToolName makes a provider's tool name safe to send back: every
// character outside [A-Za-z0-9_-] becomes "_", so for example
// "multi_tool_use.parallel" becomes "multi_tool_use_parallel".
func NormalizeToolName(name string) string {
	return strings.Map(func(r rune) rune {
		switch {
		case r >= 'a' && r <= 'z', r >= 'A' && r <= 'Z', r >= '0' && r <= '9', r == '_', r == '-':
			return r
		default:
			return '_'
		}
	}, name)
}
