package fim_test

import (
	"errors"
	"strings"

	. "github.com/onsi/ginkgo/v2"
	. "github.com/onsi/gomega"

	"keygate/adapters/provider/fim"
	"keygate/adapters/provider/protocol"
	"keygate/adapters/provider/providertest"
	"keygate/domain/llm"
)

// sse frames each payload as a data-only event.
func sse(payloads ...string) []byte {
	var b strings.Builder
	for _, p := range payloads {
		b.WriteString("data: " + p + "\n\n")
	}
	return []byte(b.String())
}

// class is the class of a provider error.
func class(err error) llm.ErrorClass {
	var perr *llm.ProviderError
	ExpectWithOffset(1, errors.As(err, &perr)).To(BeTrue(), "want *llm.ProviderError, got %v", err)
	return perr.Class
}

func decode(body []byte) (providertest.Summary, []llm.Event, error) {
	events, err := providertest.DecodeAll(fim.Completions().NewDecoder(), body)
	return providertest.Summarize(events), events, err
}

const (
	text1 = `{"id":"c1","object":"text_completion","model":"m","choices":[{"text":"a +","index":0,"logprobs":null,"finish_reason":null}],"usage":null}`
	text2 = `{"id":"c1","object":"text_completion","model":"m","choices":[{"text":" b","index":0,"logprobs":null,"finish_reason":null}],"usage":null}`
)

var _ = Describe("The fill-in-the-middle decoder", func() {
	It("reads usage sent on a chunk of its own, after the finish chunk with an empty text", func() {
		s, events, err := decode(sse(text1, text2,
			`{"id":"c1","object":"text_completion","model":"m","choices":[{"text":"","index":0,"logprobs":null,"finish_reason":"stop"}],"usage":null}`,
			`{"id":"c1","object":"text_completion","model":"m","choices":[],"usage":{"prompt_tokens":12,"completion_tokens":2,"total_tokens":14}}`,
			`[DONE]`))
		Expect(err).NotTo(HaveOccurred())
		Expect(providertest.CheckGrammar(events)).To(Succeed())
		Expect(s.Text).To(Equal("a + b"))
		Expect(s.Finish).To(Equal(llm.FinishStop))
		Expect(s.Usage.Input).To(BeEquivalentTo(12))
		Expect(s.Usage.Output).To(BeEquivalentTo(2))
		Expect(s.ModelCallID).To(Equal("c1"))
	})

	It("reads usage sent on the last choice chunk, with the last text", func() {
		s, events, err := decode(sse(text1,
			`{"id":"c1","object":"text_completion","model":"m","choices":[{"text":" b","index":0,"finish_reason":"length"}],"usage":{"prompt_tokens":3,"completion_tokens":2,"prompt_tokens_details":{"cached_tokens":1}}}`,
			`[DONE]`))
		Expect(err).NotTo(HaveOccurred())
		Expect(providertest.CheckGrammar(events)).To(Succeed())
		Expect(s.Text).To(Equal("a + b"))
		Expect(s.Finish).To(Equal(llm.FinishLength))
		Expect(s.Usage.Input).To(BeEquivalentTo(2), "fresh input: the prompt's 3 less the cached 1")
		Expect(s.Usage.CacheRead).To(BeEquivalentTo(1))
	})

	It("reports no usage when the server sends none, and still finishes", func() {
		s, events, err := decode(sse(text1,
			`{"id":"c1","object":"text_completion","model":"m","choices":[{"text":"","index":0,"finish_reason":"stop"}]}`,
			`[DONE]`))
		Expect(err).NotTo(HaveOccurred())
		Expect(providertest.CheckGrammar(events)).To(Succeed())
		Expect(s.Usage).To(BeNil())
		Expect(s.Finish).To(Equal(llm.FinishStop))
	})

	It("finishes an empty completion (the model had nothing to insert) with no text block", func() {
		s, events, err := decode(sse(`{"id":"c1","object":"text_completion","model":"m","choices":[{"text":"","index":0,"finish_reason":"stop"}]}`, `[DONE]`))
		Expect(err).NotTo(HaveOccurred())
		Expect(providertest.CheckGrammar(events)).To(Succeed())
		Expect(s.Text).To(BeEmpty())
		Expect(events).To(HaveLen(2), "Start and Done")
	})

	It("reads a Mistral stream's text from delta.content, with DeepSeek's cache-hit count", func() {
		events, err := providertest.DecodeAll(fim.Mistral().NewDecoder(), sse(
			`{"id":"f1","object":"chat.completion.chunk","model":"codestral-latest","choices":[{"index":0,"delta":{"role":"assistant","content":""},"finish_reason":null}]}`,
			`{"id":"f1","object":"chat.completion.chunk","model":"codestral-latest","choices":[{"index":0,"delta":{"content":"a + b"},"finish_reason":null}]}`,
			`{"id":"f1","object":"chat.completion.chunk","model":"codestral-latest","choices":[{"index":0,"delta":{"content":""},"finish_reason":"model_length"}],"usage":{"prompt_tokens":9,"completion_tokens":3,"prompt_cache_hit_tokens":4}}`,
			`[DONE]`))
		Expect(err).NotTo(HaveOccurred())
		Expect(providertest.CheckGrammar(events)).To(Succeed())
		s := providertest.Summarize(events)
		Expect(s.Text).To(Equal("a + b"))
		Expect(s.Finish).To(Equal(llm.FinishLength))
		Expect(s.Usage.CacheRead).To(BeEquivalentTo(4))
	})

	DescribeTable("decodes what the fake provider's builders render",
		func(p protocol.Protocol, render func(providertest.Turn) []byte) {
			turn := providertest.Turn{Text: []string{"re", "turn a + b"}, Usage: providertest.Usage{Input: 5, Output: 2}}
			events, err := providertest.DecodeAll(p.NewDecoder(), render(turn))
			Expect(err).NotTo(HaveOccurred())
			Expect(providertest.CheckGrammar(events)).To(Succeed())
			s := providertest.Summarize(events)
			Expect(s.Text).To(Equal("return a + b"))
			Expect(s.Usage.Output).To(BeEquivalentTo(2))
			Expect(s.Finish).To(Equal(llm.FinishStop))
		},
		Entry("completions", fim.Completions(), providertest.CompletionsSSE),
		Entry("Mistral", fim.Mistral(), providertest.MistralSSE),
	)

	It("is a protocol error when the stream is cut before a finish_reason or [DONE]", func() {
		_, _, err := decode(sse(text1))
		Expect(err).To(MatchError(ContainSubstring("without finish_reason")))
		Expect(class(err)).To(Equal(llm.ErrorProtocol))
		_, _, err = decode(nil)
		Expect(err).To(MatchError(ContainSubstring("without any chunk")))
	})

	It("classifies an error sent inside the stream, in OpenAI's form and in vLLM's", func() {
		_, _, err := decode(sse(text1, `{"error":{"message":"Rate limit reached","type":"requests","code":"rate_limit_exceeded"}}`))
		Expect(class(err)).To(Equal(llm.ErrorRateLimit))
		_, _, err = decode(sse(`{"object":"error","message":"This model's maximum context length is 2048 tokens","type":"BadRequestError","code":400}`))
		Expect(class(err)).To(Equal(llm.ErrorContextOverflow))
		_, _, err = decode(sse(`{"id":"f1","choices":[{"index":0,"delta":{"content":""},"finish_reason":"error"}]}`))
		Expect(class(err)).To(Equal(llm.ErrorTransient))
	})

	It("reads only the first completion, and keeps the id and model of the stream", func() {
		dec := fim.Completions().NewDecoder()
		events, err := providertest.DecodeAll(dec, sse(text1,
			`{"id":"c1","object":"text_completion","model":"m","choices":[{"text":"other","index":1,"finish_reason":null}]}`,
			`{"id":"c1","object":"text_completion","model":"m","choices":[{"text":"","index":0,"finish_reason":"stop"}]}`, `[DONE]`))
		Expect(err).NotTo(HaveOccurred())
		Expect(providertest.Summarize(events).Text).To(Equal("a +"))
		id, model := dec.Meta()
		Expect([]string{id, model}).To(Equal([]string{"c1", "m"}))
	})
})
