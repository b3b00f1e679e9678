package provider

import (
	"fmt"
	"net/http"

	"keygate/adapters/provider/anthropic"
	"keygate/adapters/provider/openai"
	"keygate/adapters/provider/sse"
	"keygate/adapters/provider/wire"
	"keygate/domain/llm"
)

// decoder is what each wire adapter's stream decoder provides.
type decoder interface {
	// Decode handles one SSE event, appending model events to out. Events
	// appended before an error are still delivered.
	Decode(ev sse.Event, out []llm.Event) ([]llm.Event, error)
	// End handles EOF.
	End(out []llm.Event) ([]llm.Event, error)
	// Ended reports that the terminal event was handled.
	Ended() bool
	// Meta returns the provider's response id and model.
	Meta() (id, model string)
}

// protocol binds one llm.ProviderKind to its wire adapter.
type protocol struct {
	label   string
	body    func(dst []byte, req llm.Request, extras *wire.Extras, q openai.Quirks) ([]byte, error)
	headers func(h http.Header, apiKey string, q openai.Quirks)
	decoder func() decoder
}

func protocolFor(kind llm.ProviderKind) (protocol, error) {
	switch kind {
	case llm.ProviderOpenAIChat:
		return protocol{
			label: "OpenAI Chat",
			body: func(dst []byte, req llm.Request, e *wire.Extras, q openai.Quirks) ([]byte, error) {
				return openai.AppendChat(dst, req, openai.Options{Extras: e, Quirks: q})
			},
			headers: openAIHeaders,
			decoder: func() decoder { return &openai.ChatDecoder{} },
		}, nil
	case llm.ProviderOpenAIResponses:
		return protocol{
			label: "OpenAI Responses",
			body: func(dst []byte, req llm.Request, e *wire.Extras, q openai.Quirks) ([]byte, error) {
				return openai.AppendResponses(dst, req, openai.Options{Extras: e, Quirks: q})
			},
			headers: openAIHeaders,
			decoder: func() decoder { return &openai.ResponsesDecoder{} },
		}, nil
	case llm.ProviderAnthropic:
		return protocol{
			label: "Anthropic",
			body: func(dst []byte, req llm.Request, e *wire.Extras, q openai.Quirks) ([]byte, error) {
				return anthropic.AppendRequest(dst, req, anthropic.Options{Extras: e, ThinkingCarrier: q.DeepSeek})
			},
			headers: func(h http.Header, apiKey string, _ openai.Quirks) {
				h.Set("x-api-key", apiKey)
				h.Set("anthropic-version", anthropicVersion)
			},
			decoder: func() decoder { return &anthropic.Decoder{} },
		}, nil
	}
	return protocol{}, fmt.Errorf("unknown provider kind %q", kind)
}

const anthropicVersion = "2023-06-01"

// openAIHeaders authenticates with a bearer token, or Azure's api-key header.
func openAIHeaders(h http.Header, apiKey string, q openai.Quirks) {
	if q.Azure {
		h.Set("api-key", apiKey)
		return
	}
	h.Set("Authorization", "Bearer "+apiKey)
}
