package fim

import (
	"context"
	"encoding/json"
	"net/http"
	"net/url"
	"strings"

	"keygate/adapters/provider/compat"
	"keygate/adapters/provider/protocol"
	"keygate/domain/llm"
)

// Labels name the protocols in error messages and lists.
const (
	completionsLabel = "OpenAI Completions"
	mistralLabel     = "Mistral FIM"
)

// reserved are the body fields that carry the prompt or how it is
// streamed; a model's extra parameters may not replace them.
var reserved = []string{"model", "prompt", "suffix", "stream"}

// Completions is OpenAI's legacy completions endpoint with a suffix, the
// fill-in-the-middle form most self-hosted servers speak. Servers differ in
// what they do with the suffix: DeepSeek serves it at its beta base
// (https://api.deepseek.com/beta) with at most 4K output tokens; Ollama's
// OpenAI-compatible /v1/completions lists suffix among its fields, and
// inserts only with a model whose template supports insertion. A server
// that ignores the suffix completes from the prefix alone.
func Completions() protocol.Protocol {
	return protocol.Protocol{
		Kind:     llm.ProviderOpenAICompletions,
		Name:     completionsLabel,
		Title:    "OpenAI Completions with suffix (fill-in-the-middle: DeepSeek, vLLM, Ollama, llama.cpp, LM Studio)",
		URL:      completionsURL,
		Auth:     auth,
		Reserved: reserved,
		AppendRequest: func(dst []byte, req llm.Request, o protocol.RequestOptions) ([]byte, error) {
			return AppendCompletions(dst, req, o)
		},
		NewDecoder: func() protocol.Decoder { return &Decoder{label: completionsLabel} },
		Models:     protocol.Models{Label: "OpenAI", Auth: listAuth, List: listModels},
		FillIn:     true,
	}
}

// Mistral is Mistral's fill-in-the-middle endpoint, which Codestral serves
// (at api.mistral.ai and codestral.mistral.ai).
func Mistral() protocol.Protocol {
	return protocol.Protocol{
		Kind:     llm.ProviderMistralFIM,
		Name:     mistralLabel,
		Title:    "Mistral FIM (Codestral)",
		URL:      protocol.StandardPath("/v1/fim/completions"),
		Auth:     auth,
		Reserved: reserved,
		AppendRequest: func(dst []byte, req llm.Request, o protocol.RequestOptions) ([]byte, error) {
			return AppendMistral(dst, req, o)
		},
		NewDecoder: func() protocol.Decoder { return &Decoder{label: mistralLabel} },
		Models:     protocol.Models{Label: "Mistral", Auth: listAuth, List: listModels},
		FillIn:     true,
	}
}

// standardCompletions is the usual rule: base plus /v1/completions, without
// the /v1 when base ends in a version segment.
var standardCompletions = protocol.StandardPath("/v1/completions")

// completionsURL is the standard rule, except at a base ending in /beta:
// DeepSeek documents its FIM base as https://api.deepseek.com/beta and the
// endpoint as POST /beta/completions, so /beta stands where a version
// segment would.
func completionsURL(base url.URL, model string) url.URL {
	if strings.HasSuffix(base.Path, "/beta") {
		base.Path += "/completions"
		return base
	}
	return standardCompletions(base, model)
}

// auth authenticates a call with a bearer token; neither protocol has an
// API-version header.
func auth(h http.Header, apiKey string, _ compat.Quirks) {
	h.Set("Authorization", "Bearer "+apiKey)
}

func listAuth(h http.Header, apiKey string, _ *url.URL) {
	h.Set("Authorization", "Bearer "+apiKey)
}

// listModels reads the data array of a model list ({"data":[{"id":…}]}),
// one page; an entry may be a bare id, or name itself with name instead of
// id (some compatible servers).
func listModels(ctx context.Context, u string, get protocol.GetJSON) ([]string, error) {
	var page struct {
		Data []json.RawMessage `json:"data"`
	}
	if err := get(ctx, u, &page); err != nil {
		return nil, err
	}
	var ids []string
	for _, raw := range page.Data {
		var s string
		if json.Unmarshal(raw, &s) == nil {
			ids = append(ids, s)
			continue
		}
		var m struct{ ID, Name string }
		if json.Unmarshal(raw, &m) != nil {
			continue
		}
		if m.ID != "" {
			ids = append(ids, m.ID)
		} else if m.Name != "" {
			ids = append(ids, m.Name)
		}
	}
	return ids, nil
}
