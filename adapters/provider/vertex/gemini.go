package vertex

import (
	"net/url"

	"keygate/adapters/provider/gemini"
	"keygate/adapters/provider/protocol"
	"keygate/domain/llm"
)

const geminiLabel = "Vertex Gemini"

// appendGemini is the Gemini API's body (gemini.AppendRequest): Vertex AI
// takes the same GenerateContentRequest.
func appendGemini(dst []byte, req llm.Request, o protocol.RequestOptions) ([]byte, error) {
	if err := protocol.RefuseFillIn(geminiLabel, req); err != nil {
		return dst, err
	}
	req.Messages = replayFor(req.Messages, llm.ProviderVertexGemini, llm.ProviderGemini)
	return gemini.AppendRequest(dst, req, o)
}

// Gemini is Google's Gemini models on Vertex AI: POST
// {base}/v1/projects/{project}/locations/{region}/publishers/google/models/{model}:streamGenerateContent?alt=sse,
// answered by SSE of GenerateContentResponse chunks as the Gemini API's.
func Gemini() protocol.Protocol {
	return protocol.Protocol{
		Kind:          llm.ProviderVertexGemini,
		Name:          geminiLabel,
		Title:         "Google Vertex AI: Gemini (streamGenerateContent)",
		URL:           func(base url.URL, model string) url.URL { return GeminiURL(base, locationOf(base), model) },
		Sign:          sign(geminiLabel),
		Cloud:         cloud,
		Reserved:      []string{"contents", "systemInstruction", "tools"},
		AppendRequest: appendGemini,
		NewDecoder: func() protocol.Decoder {
			return &decoder{Decoder: &gemini.Decoder{}, vendor: llm.ProviderGemini, own: llm.ProviderVertexGemini}
		},
		Models: protocol.Models{Label: geminiLabel, Discover: discover(geminiLabel, "google")},
	}
}
