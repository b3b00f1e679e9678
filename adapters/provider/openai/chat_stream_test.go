package openai_test

import (
	"strings"

	. "github.com/onsi/ginkgo/v2"
	. "github.com/onsi/gomega"

	"keygate/adapters/provider/openai"
	"keygate/adapters/provider/providertest"
	"keygate/domain/llm"
)

// chatBody frames JSON chunks as a data-only Chat stream.
func chatBody(chunks ...string) []byte {
	var b strings.Builder
	for _, c := range chunks {
		b.WriteString("data: " + c + "\n\n")
	}
	return []byte(b.String())
}

var _ = Describe("ChatDecoder", func() {
	decode := func(body []byte) (providertest.Summary, []llm.Event, error) {
		events, err := providertest.DecodeAll(&openai.ChatDecoder{}, body)
		return providertest.Summarize(events), events, err
	}

	DescribeTable("collapses finish_reason",
		func(finish string, withCall bool, want llm.FinishReason) {
			chunks := []string{`{"id":"x","choices":[{"index":0,"delta":{"content":"a"}}]}`}
			if withCall {
				chunks = append(chunks, `{"id":"x","choices":[{"index":0,"delta":{"tool_calls":[{"index":0,"id":"c","function":{"name":"f","arguments":"{}"}}]}}]}`)
			}
			chunks = append(chunks, `{"id":"x","choices":[{"index":0,"delta":{},"finish_reason":"`+finish+`"}]}`, `[DONE]`)
			s, _, err := decode(chatBody(chunks...))
			Expect(err).NotTo(HaveOccurred())
			Expect(s.Finish).To(Equal(want))
		},
		Entry("stop without tool calls is Stop", "stop", false, llm.FinishStop),
		Entry("tool_calls is ToolUse", "tool_calls", true, llm.FinishToolUse),
		Entry("observed tool calls outrank an ordinary stop", "stop", true, llm.FinishToolUse),
		Entry("content_filter is no answer and never executes observed tool calls", "content_filter", true, llm.FinishContentFilter),
		Entry("a truncated response stays truncated even with tool calls", "length", true, llm.FinishLength),
		Entry("an unknown label without calls is Stop", "eos", false, llm.FinishStop),
	)

	It("keeps a flagged category Azure annotated on a token chunk for the content-filter finish that follows", func() {
		s, _, err := decode(chatBody(
			`{"id":"x","model":"m","choices":[{"index":0,"delta":{"content":"a"},"content_filter_results":{"hate":{"filtered":false,"severity":"safe"}}}]}`,
			`{"id":"x","model":"m","choices":[{"index":0,"delta":{"content":"b"},"content_filter_results":{"violence":{"filtered":true,"severity":"high"}}}]}`,
			`{"id":"","model":"","choices":[{"index":0,"finish_reason":"content_filter","content_filter_results":{}}]}`, `[DONE]`))
		Expect(err).NotTo(HaveOccurred())
		Expect(s.Text).To(Equal("ab"))
		Expect(s.Finish).To(Equal(llm.FinishContentFilter))
		Expect(s.Filter).To(Equal([]llm.FilterHit{{Category: "violence", Severity: "high"}}))
	})

	It("streams DeepSeek reasoning_content as thinking and returns it as Chat replay state", func() {
		s, events, err := decode(providertest.ChatSSE(providertest.Turn{
			Thinking: []string{"Let me ", "think."}, Text: []string{"Answer."}}))
		Expect(err).NotTo(HaveOccurred())
		Expect(providertest.CheckGrammar(events)).To(Succeed())
		Expect(s.Thinking).To(Equal("Let me think."))
		Expect(s.Text).To(Equal("Answer."))
		Expect(s.Replay).To(Equal(&llm.ReplayState{Kind: llm.ProviderOpenAIChat,
			Value: []byte(`{"reasoning_content":"Let me think."}`)}))
	})

	It("merges id and name fragments resent in full on every chunk", func() {
		s, events, err := decode(chatBody(
			`{"id":"x","choices":[{"index":0,"delta":{"tool_calls":[{"index":0,"id":"call_1","function":{"name":"read","arguments":"{\"a\""}}]}}]}`,
			`{"id":"x","choices":[{"index":0,"delta":{"tool_calls":[{"index":0,"id":"call_1","function":{"name":"read","arguments":":1}"}}]}}]}`,
			`{"id":"x","choices":[{"index":0,"delta":{},"finish_reason":"tool_calls"}]}`, `[DONE]`))
		Expect(err).NotTo(HaveOccurred())
		Expect(providertest.CheckGrammar(events)).To(Succeed())
		Expect(s.Calls).To(Equal([]providertest.SummaryCall{{CallID: "call_1", Name: "read", Arguments: `{"a":1}`, Ended: true}}))
	})

	It("starts a call only once both id and name are known, flushing buffered arguments", func() {
		s, _, err := decode(chatBody(
			`{"id":"x","choices":[{"index":0,"delta":{"tool_calls":[{"index":0,"function":{"name":"rea","arguments":"{"}}]}}]}`,
			`{"id":"x","choices":[{"index":0,"delta":{"tool_calls":[{"index":0,"id":"c9","function":{"name":"d","arguments":"}"}}]}}]}`,
			`{"id":"x","choices":[{"index":0,"delta":{},"finish_reason":"tool_calls"}]}`, `[DONE]`))
		Expect(err).NotTo(HaveOccurred())
		Expect(s.Calls).To(Equal([]providertest.SummaryCall{{CallID: "c9", Name: "read", Arguments: "{}", Ended: true}}))
	})

	It("names a call without an id call-<index>, and fails a call without a name", func() {
		s, _, err := decode(chatBody(
			`{"id":"x","choices":[{"index":0,"delta":{"tool_calls":[{"index":3,"function":{"name":"f","arguments":"{}"}}]}}]}`,
			`{"id":"x","choices":[{"index":0,"delta":{},"finish_reason":"tool_calls"}]}`, `[DONE]`))
		Expect(err).NotTo(HaveOccurred())
		Expect(s.Calls[0].CallID).To(Equal("call-3"))

		_, _, err = decode(chatBody(
			`{"id":"x","choices":[{"index":0,"delta":{"tool_calls":[{"index":0,"id":"c","function":{"arguments":"{}"}}]}}]}`, `[DONE]`))
		Expect(err).To(MatchError(ContainSubstring("tool call is missing name")))
	})

	It("fails a stream that ends without finish_reason or [DONE]", func() {
		_, _, err := decode(chatBody(`{"id":"x","choices":[{"index":0,"delta":{"content":"a"}}]}`))
		Expect(providerError(err).Class).To(Equal(llm.ErrorProtocol))
		Expect(err).To(MatchError(ContainSubstring("ended without finish_reason")))
	})

	It("takes usage from the finish chunk when the server sends it there (DeepSeek)", func() {
		s, _, err := decode(chatBody(
			`{"id":"x","choices":[{"index":0,"delta":{"content":"a"},"finish_reason":"stop"}],"usage":{"prompt_tokens":10,"completion_tokens":2,"prompt_tokens_details":{"cached_tokens":8}}}`,
			`[DONE]`))
		Expect(err).NotTo(HaveOccurred())
		Expect(*s.Usage).To(Equal(llm.Usage{Input: 2, CacheRead: 8, Output: 2,
			Known: llm.UsageInput | llm.UsageOutput | llm.UsageCacheRead}))
	})

	It("never indexes choices blindly: Azure's empty-choices chunks are skipped", func() {
		s, _, err := decode(chatBody(`{"id":"","model":"","choices":[]}`,
			`{"id":"x","choices":[{"index":0,"delta":{"content":"ok"},"finish_reason":"stop"}]}`, `[DONE]`))
		Expect(err).NotTo(HaveOccurred())
		Expect(s.Text).To(Equal("ok"))
	})

	DescribeTable("classifies in-band error chunks",
		func(chunk string, class llm.ErrorClass) {
			_, _, err := decode(chatBody(chunk))
			Expect(providerError(err).Class).To(Equal(class))
		},
		Entry("OpenRouter's numeric code with a rate-limit type", `{"error":{"message":"slow down","code":429,"type":"rate_limit_exceeded"}}`, llm.ErrorRateLimit),
		Entry("an overflow message is a context overflow", `{"error":{"message":"This model's maximum context length is 128000 tokens","code":"context_length_exceeded"}}`, llm.ErrorContextOverflow),
		Entry("invalid_api_key is authorization", `{"error":{"message":"bad key","code":"invalid_api_key"}}`, llm.ErrorAuthorization),
		Entry("server_error is transient", `{"error":{"message":"oops","type":"server_error"}}`, llm.ErrorTransient),
	)

	It("fails unparsable data as a protocol error", func() {
		_, _, err := decode(chatBody(`{"id":`))
		Expect(providerError(err).Class).To(Equal(llm.ErrorProtocol))
	})
})
