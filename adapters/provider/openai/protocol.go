package openai

import (
	"context"
	"encoding/json"
	"net/http"
	"net/url"
	"strings"

	"keygate/adapters/provider/compat"
	"keygate/adapters/provider/protocol"
	"keygate/domain/llm"
	"keygate/domain/modelfamily"
)

// apiHost is the host of OpenAI's own API.
const apiHost = "api.openai.com"

// Chat is the OpenAI Chat Completions protocol, the one most compatible
// servers speak.
func Chat() protocol.Protocol {
	return protocol.Protocol{
		Kind:     llm.ProviderOpenAIChat,
		Name:     chatLabel,
		Title:    "OpenAI Chat Completions (and compatible)",
		URL:      protocol.StandardPath("/v1/chat/completions"),
		Auth:     auth,
		Reserved: []string{"model", "messages", "tools", "stream", "prompt_cache_key"},
		AppendRequest: func(dst []byte, req llm.Request, o protocol.RequestOptions) ([]byte, error) {
			return AppendChat(dst, req, Options{Extras: o.Extras, Quirks: o.Quirks})
		},
		NewDecoder: func() protocol.Decoder { return &ChatDecoder{} },
		Models:     models,
		Vendor:     modelfamily.VendorOpenAI, VendorHost: apiHost,
	}
}

// Responses is the OpenAI Responses protocol.
func Responses() protocol.Protocol {
	return protocol.Protocol{
		Kind:     llm.ProviderOpenAIResponses,
		Name:     responsesLabel,
		Title:    "OpenAI Responses",
		URL:      protocol.StandardPath("/v1/responses"),
		Auth:     auth,
		Reserved: []string{"model", "instructions", "input", "tools", "stream", "prompt_cache_key"},
		AppendRequest: func(dst []byte, req llm.Request, o protocol.RequestOptions) ([]byte, error) {
			return AppendResponses(dst, req, Options{Extras: o.Extras, Quirks: o.Quirks})
		},
		NewDecoder: func() protocol.Decoder { return &ResponsesDecoder{} },
		Models:     models,
		Vendor:     modelfamily.VendorOpenAI, VendorHost: apiHost,
	}
}

// auth authenticates a call with a bearer token, or Azure's api-key header.
func auth(h http.Header, apiKey string, q compat.Quirks) {
	if q.Azure {
		h.Set("api-key", apiKey)
		return
	}
	h.Set("Authorization", "Bearer "+apiKey)
}

// models lists an OpenAI-compatible endpoint's models: one page of GET
// /models, shared by both OpenAI protocols.
var models = protocol.Models{Label: "OpenAI", Auth: listAuth, List: listModels}

// listAuth authenticates a listing with a bearer token, or with the api-key
// header on any *.azure.com host. The host rule is wider than the one of
// calls (compat.Detect names three Azure domains).
func listAuth(h http.Header, apiKey string, u *url.URL) {
	if strings.HasSuffix(u.Hostname(), ".azure.com") {
		h.Set("api-key", apiKey)
		return
	}
	h.Set("Authorization", "Bearer "+apiKey)
}

// listModels reads the data array of a model list, whose entries are ids,
// objects with an id, or (some compatible servers) objects with a name.
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
		if json.Unmarshal(raw, &m) == nil {
			if m.ID != "" {
				ids = append(ids, m.ID)
			} else if m.Name != "" {
				ids = append(ids, m.Name)
			}
		}
	}
	return ids, nil
}
