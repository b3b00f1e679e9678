package anthropic_test

import (
	"errors"
	"os"
	"path/filepath"
	"strings"

	. "github.com/onsi/ginkgo/v2"
	. "github.com/onsi/gomega"

	"keygate/adapters/provider/anthropic"
	"keygate/adapters/provider/providertest"
	"keygate/domain/llm"
)

func fixture(name string) []byte {
	b, err := os.ReadFile(filepath.Join("..", "testdata", name))
	Expect(err).NotTo(HaveOccurred())
	return b
}

func decode(body []byte) (providertest.Summary, []llm.Event, error) {
	events, err := providertest.DecodeAll(&anthropic.Decoder{}, body)
	return providertest.Summarize(events), events, err
}

func providerError(err error) *llm.ProviderError {
	var perr *llm.ProviderError
	Expect(errors.As(err, &perr)).To(BeTrue(), "want *llm.ProviderError, got %v", err)
	return perr
}

const (
	inOut     = llm.UsageInput | llm.UsageOutput
	withCache = inOut | llm.UsageCacheRead | llm.UsageCacheWrite
)

var _ = Describe("Decoder on SDK fixtures and recordings (testdata/SOURCES.md §1)", func() {
	It("reads a text answer whose last event has no final newline", func() {
		s, events, err := decode(fixture("anthropic-text-sdkfixture.sse"))
		Expect(err).NotTo(HaveOccurred())
		Expect(providertest.CheckGrammar(events)).To(Succeed())
		Expect(s.Text).To(Equal("Hello there!"))
		Expect(s.Finish).To(Equal(llm.FinishStop))
		Expect(*s.Usage).To(Equal(llm.Usage{Input: 11, Output: 6, Known: inOut}))
		Expect(s.ModelCallID).To(Equal("msg_4QpJur2dWWDjF6C758FbBw5vm12BaVipnK"))
	})

	It("reads the recorded tool_use turn with padded data lines and a ping between deltas", func() {
		s, events, err := decode(fixture("anthropic-tool-use-recorded.sse"))
		Expect(err).NotTo(HaveOccurred())
		Expect(providertest.CheckGrammar(events)).To(Succeed())
		Expect(s.Text).To(Equal("I'll get the current weather in San Francisco for you in Fahrenheit."))
		Expect(s.Calls).To(Equal([]providertest.SummaryCall{{Index: 1, CallID: "toolu_01RaX2WYWRWCbaeFHssmGJXG",
			Name: "get_weather", Arguments: `{"city": "San Francisco", "units": "fahrenheit"}`, Ended: true}}))
		Expect(s.Finish).To(Equal(llm.FinishToolUse))
		Expect(*s.Usage).To(Equal(llm.Usage{Input: 397, Output: 89, Known: withCache}))
	})

	It("reads the recorded answer after the tool result", func() {
		s, _, err := decode(fixture("anthropic-text-after-tool-result-recorded.sse"))
		Expect(err).NotTo(HaveOccurred())
		Expect(s.Text).To(Equal("The current weather in San Francisco is 68 degrees Fahrenheit."))
		Expect(s.Finish).To(Equal(llm.FinishStop))
		Expect(*s.Usage).To(Equal(llm.Usage{Input: 509, Output: 19, Known: withCache}))
	})

	It("reads a tool_use block that carries a caller field", func() {
		s, _, err := decode(fixture("anthropic-tool-use-sdkfixture.sse"))
		Expect(err).NotTo(HaveOccurred())
		Expect(s.Text).To(Equal("I'll check the current weather in Paris for you."))
		Expect(s.Calls).To(HaveLen(1))
		Expect(s.Calls[0].CallID).To(Equal("toolu_01NRLabsLyVHZPKxbKvkfSMn"))
		Expect(s.Calls[0].Name).To(Equal("get_weather"))
		Expect(s.Calls[0].Arguments).To(Equal(`{"location": "Paris"}`))
		Expect(s.Finish).To(Equal(llm.FinishToolUse))
		Expect([]int64{s.Usage.Input, s.Usage.Output}).To(Equal([]int64{377, 65}))
	})

	It("accumulates interleaved blocks by index and keeps the signed thinking for replay", func() {
		s, events, err := decode(fixture("anthropic-interleaved-blocks-sdkfixture.sse"))
		Expect(err).NotTo(HaveOccurred())
		Expect(providertest.CheckGrammar(events)).To(Succeed())
		Expect(s.Thinking).To(Equal("Let me think."))
		Expect(s.Text).To(Equal("Hello world!"))
		Expect(s.Calls).To(Equal([]providertest.SummaryCall{{Index: 2, CallID: "toolu_id", Name: "get_weather",
			Arguments: `{"city": "Los Angeles"}`, Ended: true}}))
		Expect(s.Usage).To(BeNil())
		Expect(s.Finish).To(Equal(llm.FinishToolUse), "no stop_reason: observed tools decide")
		Expect(s.Replay).To(Equal(&llm.ReplayState{Kind: llm.ProviderAnthropic,
			Value: []byte(`{"blocks":[{"type":"thinking","thinking":"Let me think.","signature":"sig123"}]}`)}))
	})

	It("keeps thinking, signature, text and usage of a refusal that came after text", func() {
		s, events, err := decode(fixture("anthropic-thinking-signature-refusal-sdkfixture.sse"))
		Expect(err).NotTo(HaveOccurred())
		Expect(providertest.CheckGrammar(events)).To(Succeed())
		Expect(s.Thinking).To(Equal(`Simple educational question about what a solar eclipse is. This is benign general knowledge — definitions are fine. Also the user called me "claudius" — I'm Claude. Minor correction or just roll with it politely.`))
		Expect(string(s.Replay.Value)).To(ContainSubstring(`"signature":"c3ludGhldGljLXNpZ25hdHVyZS1maXh0dXJlLWEtbm90LWEtcmVhbC1zaWduYXR1cmU="`))
		Expect(s.Text).To(Equal("Hi"))
		Expect(s.Finish).To(Equal(llm.FinishContentFilter), "a refusal is the policy classifiers' stop: no answer, its text kept for the eye only")
		Expect(s.Filter).To(BeEmpty(), "the refusal names no category")
		Expect(*s.Usage).To(Equal(llm.Usage{Input: 28, Output: 106, Reasoning: 67, Known: withCache | llm.UsageReasoning}))
	})

	It("overwrites message_start usage field by field with message_delta's cumulative counts", func() {
		s, _, err := decode(fixture("anthropic-usage-cache-sdkfixture.sse"))
		Expect(err).NotTo(HaveOccurred())
		Expect(s.Text).To(Equal("Hello there!"))
		Expect(s.Finish).To(Equal(llm.FinishStop))
		Expect(*s.Usage).To(Equal(llm.Usage{Input: 40, CacheWrite: 12, CacheRead: 7, Output: 8, Reasoning: 3,
			Known: withCache | llm.UsageReasoning}))
	})

	It("ends a tool call cut by max_tokens without content_block_stop, keeping it truncated", func() {
		s, events, err := decode(fixture("anthropic-max-tokens-mid-tool-sdkfixture.sse"))
		Expect(err).NotTo(HaveOccurred())
		Expect(providertest.CheckGrammar(events)).To(Succeed())
		Expect(s.Text).To(Equal("I'll create a comprehensive tax guide for someone with multiple W2s and save it in a file called taxes.txt. Let me do that for you now."))
		Expect(s.Calls).To(HaveLen(1))
		Expect(s.Calls[0].CallID).To(Equal("toolu_01EKqbqmZrGRXy18eN7m9kvY"))
		Expect(s.Calls[0].Name).To(Equal("make_file"))
		Expect(s.Calls[0].Arguments).To(Equal("{\"filename\": \"taxes.txt\", \"lines_of_text\": [\n\"# COMPREHENSIVE TAX GUIDE FOR INDIVIDUALS WITH MULTIPLE W-2s\",\n\"\",\n\"## INTRODUCTION\",\n\"\",\n\"Filing taxes"))
		Expect(s.Finish).To(Equal(llm.FinishLength))
		Expect([]int64{s.Usage.Input, s.Usage.Output}).To(Equal([]int64{450, 124}))
	})

	It("reads a refusal with an empty text block", func() {
		s, events, err := decode(fixture("anthropic-refusal-sdkfixture.sse"))
		Expect(err).NotTo(HaveOccurred())
		Expect(providertest.CheckGrammar(events)).To(Succeed())
		Expect(events).To(ContainElement(HaveField("Kind", llm.EventTextStart)))
		Expect(s.Text).To(BeEmpty())
		Expect(s.Finish).To(Equal(llm.FinishContentFilter))
		Expect(s.Filter).To(Equal([]llm.FilterHit{{Category: "cyber"}}), "stop_details.category names the policy")
		Expect([]int64{s.Usage.Input, s.Usage.Output}).To(Equal([]int64{20, 0}))
	})

	It("classifies an in-band overloaded_error as transient", func() {
		s, _, err := decode(fixture("anthropic-error-overloaded.sse"))
		perr := providerError(err)
		Expect(perr.Class).To(Equal(llm.ErrorTransient))
		Expect(perr.Message).To(ContainSubstring("overloaded_error"))
		Expect(perr.Message).To(ContainSubstring("Overloaded"))
		Expect(s.Finish).To(BeZero())
	})
})

var _ = Describe("Decoder", func() {
	It("never authorizes tools streamed alongside a refusal, keeping text and usage", func() {
		s, events, err := decode(providertest.AnthropicSSE(providertest.Turn{Text: []string{"Sure"},
			Calls: []providertest.Call{{ID: "t1", Name: "rm", Arguments: []string{`{}`}}},
			Usage: providertest.Usage{Input: 3, Output: 2}, Finish: "refusal"}))
		perr := providerError(err)
		Expect(perr.Class).To(Equal(llm.ErrorRefusal))
		Expect(s.Text).To(Equal("Sure"))
		Expect([]int64{s.Usage.Input, s.Usage.Output}).To(Equal([]int64{3, 2}))
		Expect(events).NotTo(ContainElement(HaveField("Kind", llm.EventDone)))
	})

	It("does not let a later stop erase an earlier refusal", func() {
		body := string(providertest.AnthropicSSE(providertest.Turn{Text: []string{"x"},
			Calls: []providertest.Call{{ID: "t1", Name: "rm"}}, Finish: "refusal"}))
		body = strings.Replace(body, "event: message_stop",
			"event: message_delta\ndata: {\"type\":\"message_delta\",\"delta\":{\"stop_reason\":\"end_turn\"}}\n\nevent: message_stop", 1)
		_, _, err := decode([]byte(body))
		Expect(providerError(err).Class).To(Equal(llm.ErrorRefusal))
	})

	It("finishes normally at EOF after a stop reason without message_stop", func() {
		body := string(providertest.AnthropicSSE(providertest.Turn{Text: []string{"ok"}}))
		body = body[:strings.Index(body, "event: message_stop")]
		s, _, err := decode([]byte(body))
		Expect(err).NotTo(HaveOccurred())
		Expect(s.Finish).To(Equal(llm.FinishStop))
	})

	It("fails EOF without a stop reason and never authorizes tools then", func() {
		body := string(providertest.AnthropicSSE(providertest.Turn{Calls: []providertest.Call{{ID: "t", Name: "f"}}}))
		body = body[:strings.Index(body, "event: message_delta")]
		s, _, err := decode([]byte(body))
		Expect(err).To(MatchError(ContainSubstring("ended without message_stop")))
		Expect(s.Finish).To(BeZero())
	})

	It("keeps redacted thinking blocks for replay in stream order", func() {
		body := strings.Join([]string{
			`data: {"type":"message_start","message":{"id":"m"}}`,
			`data: {"type":"content_block_start","index":0,"content_block":{"type":"redacted_thinking","data":"opaque"}}`,
			`data: {"type":"content_block_stop","index":0}`,
			`data: {"type":"message_delta","delta":{"stop_reason":"end_turn"}}`,
			`data: {"type":"message_stop"}`, ""}, "\n\n")
		s, _, err := decode([]byte(body))
		Expect(err).NotTo(HaveOccurred())
		Expect(string(s.Replay.Value)).To(Equal(`{"blocks":[{"type":"redacted_thinking","data":"opaque"}]}`))
	})
})
