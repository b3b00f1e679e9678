package openai_test

import (
	"os"
	"path/filepath"

	. "github.com/onsi/ginkgo/v2"
	. "github.com/onsi/gomega"

	"keygate/adapters/provider/openai"
	"keygate/adapters/provider/providertest"
	"keygate/domain/llm"
)

func fixture(name string) []byte {
	b, err := os.ReadFile(filepath.Join("..", "testdata", name))
	Expect(err).NotTo(HaveOccurred())
	return b
}

// usage builds the expected normalised usage of an OpenAI report, where
// prompt tokens include cached ones.
func usage(prompt, cached, completion, reasoning int64, known llm.UsageFields) *llm.Usage {
	return &llm.Usage{Input: prompt - cached, CacheRead: cached, Output: completion, Reasoning: reasoning, Known: known}
}

var _ = Describe("ChatDecoder on recorded transcripts (testdata/SOURCES.md §2)", func() {
	var decode = func(name string) (providertest.Summary, []llm.Event, error) {
		events, err := providertest.DecodeAll(&openai.ChatDecoder{}, fixture(name))
		return providertest.Summarize(events), events, err
	}

	It("reads the text transcript with its usage-only last chunk", func() {
		s, events, err := decode("openai-chat-text-recorded.sse")
		Expect(err).NotTo(HaveOccurred())
		Expect(providertest.CheckGrammar(events)).To(Succeed())
		Expect(s.Text).To(Equal("I'm unable to provide real-time weather updates. To get the current weather in San Francisco, I recommend checking a reliable weather website or a weather app."))
		Expect(s.Finish).To(Equal(llm.FinishStop))
		Expect(s.Usage).To(Equal(usage(14, 0, 30, 0, llm.UsageInput|llm.UsageOutput|llm.UsageReasoning)))
		Expect(s.Calls).To(BeEmpty())
	})

	It("reads a tool call whose id and name come only in the first fragment", func() {
		s, events, err := decode("openai-chat-tool-call-recorded.sse")
		Expect(err).NotTo(HaveOccurred())
		Expect(providertest.CheckGrammar(events)).To(Succeed())
		Expect(s.Text).To(BeEmpty())
		Expect(s.Calls).To(ConsistOf(providertest.SummaryCall{Index: 0, CallID: "call_4XzlGBLtUe9dy3GVNV4jhq7h",
			Name: "get_weather", Arguments: `{"city":"New York City"}`, Ended: true}))
		Expect(s.Finish).To(Equal(llm.FinishToolUse))
		Expect(s.Usage.Input + s.Usage.CacheRead).To(BeEquivalentTo(44))
		Expect(s.Usage.Output).To(BeEquivalentTo(16))
	})

	It("reads a strict tool call", func() {
		s, _, err := decode("openai-chat-strict-tool-call-recorded.sse")
		Expect(err).NotTo(HaveOccurred())
		Expect(s.Calls).To(ConsistOf(providertest.SummaryCall{Index: 0, CallID: "call_CTf1nWJLqSeRgDqaCG27xZ74",
			Name: "get_weather", Arguments: `{"city":"San Francisco","state":"CA"}`, Ended: true}))
		Expect(s.Finish).To(Equal(llm.FinishToolUse))
		Expect([]int64{s.Usage.Input, s.Usage.Output}).To(Equal([]int64{48, 19}))
	})

	It("tells parallel calls apart by tool_calls[].index alone", func() {
		s, events, err := decode("openai-chat-parallel-tool-calls-recorded.sse")
		Expect(err).NotTo(HaveOccurred())
		Expect(providertest.CheckGrammar(events)).To(Succeed())
		Expect(s.Calls).To(Equal([]providertest.SummaryCall{
			{Index: 0, CallID: "call_JMW1whyEaYG438VE1OIflxA2", Name: "GetWeatherArgs",
				Arguments: `{"city": "Edinburgh", "country": "GB", "units": "c"}`, Ended: true},
			{Index: 1, CallID: "call_DNYTawLBoN8fj3KN6qU9N1Ou", Name: "get_stock_price",
				Arguments: `{"ticker": "AAPL", "exchange": "NASDAQ"}`, Ended: true},
		}))
		Expect(s.Finish).To(Equal(llm.FinishToolUse))
		Expect([]int64{s.Usage.Input, s.Usage.Output}).To(Equal([]int64{149, 60}))
	})

	It("reports a one-token answer cut by the length limit as Length", func() {
		s, _, err := decode("openai-chat-length-recorded.sse")
		Expect(err).NotTo(HaveOccurred())
		Expect(s.Text).To(Equal(`{"`))
		Expect(s.Finish).To(Equal(llm.FinishLength))
		Expect([]int64{s.Usage.Input, s.Usage.Output}).To(Equal([]int64{79, 1}))
	})

	It("shows a delta.refusal as text and ends with an ordinary stop", func() {
		s, _, err := decode("openai-chat-refusal-recorded.sse")
		Expect(err).NotTo(HaveOccurred())
		Expect(s.Text).To(Equal("I'm sorry, I can't assist with that request."))
		Expect(s.Finish).To(Equal(llm.FinishStop))
		Expect([]int64{s.Usage.Input, s.Usage.Output}).To(Equal([]int64{79, 11}))
	})

	It("ignores the obfuscation padding of the spec example and reports no usage", func() {
		s, _, err := decode("openai-chat-text-spec-obfuscation.sse")
		Expect(err).NotTo(HaveOccurred())
		Expect(s.Text).To(Equal("Hello"))
		Expect(s.Finish).To(Equal(llm.FinishStop))
		Expect(s.Usage).To(BeNil())
	})

	It("reports the response id as the model call id", func() {
		s, _, err := decode("openai-chat-tool-call-recorded.sse")
		Expect(err).NotTo(HaveOccurred())
		Expect(s.ModelCallID).To(Equal("chatcmpl-ABfwERreu9s99xXsVuOWtIB2UOx62"))
	})
})

var _ = Describe("ChatDecoder on Azure's documented content-filter streams (testdata/SOURCES.md §4)", func() {
	decode := func(name string) (providertest.Summary, []llm.Event, *openai.ChatDecoder, error) {
		d := &openai.ChatDecoder{}
		events, err := providertest.DecodeAll(d, fixture(name))
		return providertest.Summarize(events), events, d, err
	}

	It("reports an answer Azure's filter blocked as a content-filter finish naming the category, not as an ordinary stop", func() {
		s, events, _, err := decode("openai-chat-azure-content-filter-docs.sse")
		Expect(err).NotTo(HaveOccurred())
		Expect(providertest.CheckGrammar(events)).To(Succeed())
		Expect(s.Text).To(Equal("Hey Jude, better"), "what streamed before the block is still shown")
		Expect(s.Finish).To(Equal(llm.FinishContentFilter))
		Expect(s.Filter).To(Equal([]llm.FilterHit{{Category: "protected_material_text"}}),
			"only the categories the filter acted on, not the safe annotations")
	})

	It("takes the response id and model from the first chunk that carries them: Azure's first chunk is empty", func() {
		for _, name := range []string{"openai-chat-azure-content-filter-docs.sse", "openai-chat-azure-empty-first-id-docs.sse"} {
			_, _, d, err := decode(name)
			Expect(err).NotTo(HaveOccurred(), name)
			id, model := d.Meta()
			Expect(model).To(Equal("gpt-35-turbo"), name)
			Expect(id).To(HavePrefix("chatcmpl-"), name)
		}
	})

	It("reads a stream that passed the filter, with annotation-only chunks between the tokens, as an ordinary answer", func() {
		s, events, d, err := decode("openai-chat-azure-empty-first-id-docs.sse")
		Expect(err).NotTo(HaveOccurred())
		Expect(providertest.CheckGrammar(events)).To(Succeed())
		Expect(s.Text).To(Equal("Color is a"))
		Expect(s.Finish).To(Equal(llm.FinishStop))
		Expect(s.Filter).To(BeEmpty())
		Expect(s.ModelCallID).To(Equal("chatcmpl-7rCNsVeZy0PGnX3H6jK8STps5nZUY"), "Start waits for the first chunk with content")
		id, _ := d.Meta()
		Expect(id).To(Equal("chatcmpl-7rCNsVeZy0PGnX3H6jK8STps5nZUY"))
	})
})
