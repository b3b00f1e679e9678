package providertest

import (
	"encoding/json"
	"fmt"

	"keygate/domain/llm"
)

// Segment is one piece of a request body's prompt, in the order the
// provider reads the prompt and caches its prefix: a tool, the system
// prompt, a message (an Anthropic content block). Bytes is the piece as
// canonical JSON without cache_control markers, which say where to cache
// and are not part of what is cached.
type Segment struct {
	Name  string
	Bytes []byte
}

// PromptSegments splits a request body of protocol kind into its prompt
// in the provider's prompt order:
//
//   - Anthropic Messages (and Vertex AI's Anthropic models): tools, then system, then messages, as Anthropic
//     documents its cache prefix ("tools, system, and messages, in that
//     order"); a message is split into its content blocks, because the
//     protocol merges consecutive messages of one role into one turn.
//   - OpenAI Chat Completions: the leading system or developer message,
//     then tools, then the other messages;
//   - OpenAI Responses: instructions, then tools, then input items.
//
// The OpenAI order is the one OpenAI's published prompt format (harmony:
// the developer message holds the instructions, then the tool namespace)
// renders; OpenAI caches the longest matching prefix of that rendering.
func PromptSegments(kind llm.ProviderKind, body []byte) ([]Segment, error) {
	var req map[string]any
	if err := json.Unmarshal(body, &req); err != nil {
		return nil, fmt.Errorf("decode request body: %w", err)
	}
	var out []Segment
	add := func(name string, v any) error {
		b, err := json.Marshal(strip(v))
		if err != nil {
			return fmt.Errorf("encode %s: %w", name, err)
		}
		out = append(out, Segment{Name: name, Bytes: b})
		return nil
	}
	each := func(field string, v any) error {
		list, _ := v.([]any)
		for i, item := range list {
			if err := add(fmt.Sprintf("%s[%d]", field, i), item); err != nil {
				return err
			}
		}
		return nil
	}
	switch kind {
	case llm.ProviderAnthropic, llm.ProviderVertexAnthropic:
		if err := each("tools", req["tools"]); err != nil {
			return nil, err
		}
		if err := each("system", req["system"]); err != nil {
			return nil, err
		}
		msgs, _ := req["messages"].([]any)
		for i, m := range msgs {
			msg, _ := m.(map[string]any)
			blocks, _ := msg["content"].([]any)
			for j, b := range blocks {
				if err := add(fmt.Sprintf("messages[%d].content[%d]", i, j), map[string]any{"role": msg["role"], "block": b}); err != nil {
					return nil, err
				}
			}
		}
	case llm.ProviderOpenAIChat:
		msgs, _ := req["messages"].([]any)
		first := 0
		if len(msgs) > 0 {
			if m, _ := msgs[0].(map[string]any); m["role"] == "system" || m["role"] == "developer" {
				if err := add("messages[0]", m); err != nil {
					return nil, err
				}
				first = 1
			}
		}
		if err := each("tools", req["tools"]); err != nil {
			return nil, err
		}
		for i := first; i < len(msgs); i++ {
			if err := add(fmt.Sprintf("messages[%d]", i), msgs[i]); err != nil {
				return nil, err
			}
		}
	case llm.ProviderOpenAIResponses:
		if in, ok := req["instructions"]; ok {
			if err := add("instructions", in); err != nil {
				return nil, err
			}
		}
		if err := each("tools", req["tools"]); err != nil {
			return nil, err
		}
		if err := each("input", req["input"]); err != nil {
			return nil, err
		}
	default:
		return nil, fmt.Errorf("prompt segments of protocol %v: unknown protocol", kind)
	}
	return out, nil
}

// strip removes cache_control markers at any depth.
func strip(v any) any {
	switch x := v.(type) {
	case map[string]any:
		out := make(map[string]any, len(x))
		for k, e := range x {
			if k != "cache_control" {
				out[k] = strip(e)
			}
		}
		return out
	case []any:
		out := make([]any, len(x))
		for i, e := range x {
			out[i] = strip(e)
		}
		return out
	}
	return v
}

// Retention is how much of one prompt the next prompt repeats from its
// start, segment by segment.
type Retention struct {
	// Kept is the bytes of the leading segments both prompts share; Total
	// the bytes of the whole previous prompt; Added the bytes of the next
	// prompt past what it kept.
	Kept, Total, Added int
	// Common is the number of leading segments both share; Changed names
	// the previous prompt's first segment the next one does not repeat
	// ("" when the next prompt extends the previous one).
	Common  int
	Changed string
	// First names the next prompt's first segment past the shared ones
	// ("" when it adds nothing).
	First string
}

// Share is Kept over Total: the part of the previous prompt the provider
// can serve from its cache for the next one.
func (r Retention) Share() float64 {
	if r.Total == 0 {
		return 1
	}
	return float64(r.Kept) / float64(r.Total)
}

// Extends reports whether the next prompt repeats all of the previous one.
func (r Retention) Extends() bool { return r.Changed == "" }

// Retained compares two prompts split by PromptSegments.
func Retained(previous, next []Segment) Retention {
	var r Retention
	for _, s := range previous {
		r.Total += len(s.Bytes)
	}
	for r.Common < len(previous) && r.Common < len(next) && string(previous[r.Common].Bytes) == string(next[r.Common].Bytes) {
		r.Kept += len(previous[r.Common].Bytes)
		r.Common++
	}
	if r.Common < len(previous) {
		r.Changed = previous[r.Common].Name
	}
	if r.Common < len(next) {
		r.First = next[r.Common].Name
	}
	for _, s := range next[r.Common:] {
		r.Added += len(s.Bytes)
	}
	return r
}
