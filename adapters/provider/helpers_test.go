package provider_test

import (
	"errors"
	"net/http"
	"net/url"

	. "github.com/onsi/gomega"

	"keygate/adapters/provider/providertest"
	"keygate/domain/llm"
	"keygate/ports"
)

const apiKey = "sk-test-SECRET-0123456789"

// drain reads a stream to its end and returns its events and error.
func drain(s ports.ModelStream) ([]llm.Event, error) {
	var events []llm.Event
	for s.Next() {
		events = append(events, s.Event())
	}
	return events, s.Err()
}

func providerError(err error) *llm.ProviderError {
	var perr *llm.ProviderError
	ExpectWithOffset(1, errors.As(err, &perr)).To(BeTrue(), "want *llm.ProviderError, got %v", err)
	return perr
}

func simpleRequest(model string) llm.Request {
	return llm.Request{Model: model, Instructions: "Be brief.", CacheKey: "conv-1",
		Messages: []llm.Message{{Role: llm.RoleUser, Parts: []llm.Part{{Kind: llm.PartText, Text: "hi"}}}}}
}

// render scripts turn in the protocol of kind.
func render(kind llm.ProviderKind, turn providertest.Turn) []byte {
	switch kind {
	case llm.ProviderOpenAIChat:
		return providertest.ChatSSE(turn)
	case llm.ProviderOpenAIResponses:
		return providertest.ResponsesSSE(turn)
	case llm.ProviderGemini:
		return providertest.GeminiSSE(turn)
	default:
		return providertest.AnthropicSSE(turn)
	}
}

// rewriteTo sends every request to the fake server at base, whatever host
// the URL names, so host-based quirks can be exercised on loopback.
func rewriteTo(base string) http.RoundTripper {
	target, err := url.Parse(base)
	Expect(err).NotTo(HaveOccurred())
	transport := &http.Transport{}
	return roundTripper(func(r *http.Request) (*http.Response, error) {
		r = r.Clone(r.Context())
		r.URL.Scheme, r.URL.Host = target.Scheme, target.Host
		return transport.RoundTrip(r)
	})
}

type roundTripper func(*http.Request) (*http.Response, error)

func (f roundTripper) RoundTrip(r *http.Request) (*http.Response, error) { return f(r) }
