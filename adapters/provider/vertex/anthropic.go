package vertex

import (
	"net/url"

	"keygate/adapters/provider/anthropic"
	"keygate/adapters/provider/protocol"
	"keygate/adapters/provider/wire"
	"keygate/domain/llm"
	"keygate/domain/modelfamily"
)

// AnthropicVersion is the anthropic_version Vertex AI requires in the body
// of an Anthropic model's request, in place of Anthropic's header.
const AnthropicVersion = "vertex-2023-10-16"

const anthropicLabel = "Vertex Anthropic"

// appendAnthropic is Anthropic's Messages body (anthropic.AppendRequest:
// the same cache breakpoints, field order and relayed native bodies) with
// the model named by the URL instead of the body and anthropic_version
// added; Vertex refuses a body naming a model.
func appendAnthropic(dst []byte, req llm.Request, o protocol.RequestOptions) ([]byte, error) {
	if err := protocol.RefuseFillIn(anthropicLabel, req); err != nil {
		return dst, err
	}
	req.Messages = replayFor(req.Messages, llm.ProviderVertexAnthropic, llm.ProviderAnthropic)
	body, err := anthropic.AppendRequest(nil, req, anthropic.Options{Extras: o.Extras})
	if err != nil {
		return dst, err
	}
	return wire.Native(dst, body, []wire.Member{
		{Key: "model"},
		{Key: "anthropic_version", Value: wire.AppendString(nil, AnthropicVersion)},
	}, nil)
}

// Anthropic is Anthropic's models on Vertex AI: POST
// {base}/v1/projects/{project}/locations/{region}/publishers/anthropic/models/{model}:streamRawPredict
// with a Messages body, answered by Anthropic's own SSE events.
func Anthropic() protocol.Protocol {
	return protocol.Protocol{
		Kind:          llm.ProviderVertexAnthropic,
		Name:          anthropicLabel,
		Title:         "Google Vertex AI: Anthropic models (streamRawPredict)",
		URL:           func(base url.URL, model string) url.URL { return AnthropicURL(base, locationOf(base), model) },
		Sign:          sign(anthropicLabel),
		Cloud:         cloud,
		Reserved:      []string{"model", "system", "messages", "tools", "stream", "anthropic_version"},
		AppendRequest: appendAnthropic,
		NewDecoder: func() protocol.Decoder {
			return &decoder{Decoder: &anthropic.Decoder{}, vendor: llm.ProviderAnthropic, own: llm.ProviderVertexAnthropic}
		},
		Models: protocol.Models{Label: anthropicLabel, Discover: discover(anthropicLabel, "anthropic")},
		Vendor: modelfamily.VendorAnthropic,
	}
}
