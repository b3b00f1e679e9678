package openai_test

import (
	"errors"
	"strings"

	. "github.com/onsi/ginkgo/v2"
	. "github.com/onsi/gomega"

	"keygate/adapters/provider/openai"
	"keygate/adapters/provider/providertest"
	"keygate/domain/llm"
)

func providerError(err error) *llm.ProviderError {
	var perr *llm.ProviderError
	Expect(errors.As(err, &perr)).To(BeTrue(), "want *llm.ProviderError, got %v", err)
	return perr
}

var _ = Describe("ResponsesDecoder on the spec transcripts (testdata/SOURCES.md §3)", func() {
	var decode = func(name string) (providertest.Summary, []llm.Event, error) {
		events, err := providertest.DecodeAll(&openai.ResponsesDecoder{}, fixture(name))
		return providertest.Summarize(events), events, err
	}

	It("repairs elided deltas from output_text.done and reads usage from response.completed", func() {
		s, events, err := decode("openai-responses-text-spec.sse")
		Expect(err).NotTo(HaveOccurred())
		Expect(providertest.CheckGrammar(events)).To(Succeed())
		Expect(s.Text).To(Equal("Hi there! How can I assist you today?"))
		Expect(s.Finish).To(Equal(llm.FinishStop))
		Expect(s.Usage).To(Equal(usage(37, 0, 11, 0, llm.UsageInput|llm.UsageOutput|llm.UsageReasoning)))
		Expect(s.ModelCallID).To(Equal("resp_67c9fdcecf488190bdd9a0409de3a1ec07b8b0ad4e5eb654"))
	})

	It("streams a reasoning summary as thinking, and fails a stream that never terminates", func() {
		s, events, err := decode("openai-responses-reasoning-summary-spec-fragments.sse")
		Expect(providertest.CheckGrammar(events)).To(Succeed())
		Expect(s.Thinking).To(HavePrefix("**Responding to a greeting**\n\nThe user just said, \"Hello!\""))
		Expect(s.Thinking).To(HaveSuffix("Let's see where it goes from there!"))
		Expect(providerError(err).Class).To(Equal(llm.ErrorProtocol))
		Expect(err.Error()).To(ContainSubstring("ended without response.completed or response.incomplete"))
	})

	It("classifies the flat error event by its code and keeps the message", func() {
		_, _, err := decode("openai-responses-error-spec.sse")
		perr := providerError(err)
		Expect(perr.Message).To(ContainSubstring("ERR_SOMETHING"))
		Expect(perr.Message).To(ContainSubstring("Something went wrong"))
		Expect(perr.Class).To(Equal(llm.ErrorTransient))
	})

	It("classifies response.failed with server_error as transient", func() {
		_, _, err := decode("openai-responses-failed-spec.sse")
		perr := providerError(err)
		Expect(perr.Class).To(Equal(llm.ErrorTransient))
		Expect(perr.Message).To(ContainSubstring("The model failed to generate a response."))
	})

	It("maps response.incomplete (reason max_tokens) to Length", func() {
		s, events, err := decode("openai-responses-incomplete-spec.sse")
		Expect(err).NotTo(HaveOccurred())
		Expect(providertest.CheckGrammar(events)).To(Succeed())
		Expect(s.Finish).To(Equal(llm.FinishLength))
		Expect(s.Usage).To(BeNil())
	})

	It("maps response.incomplete for the content filter to a content-filter finish, not to Length", func() {
		body := strings.Replace(string(fixture("openai-responses-incomplete-spec.sse")), `"reason":"max_tokens"`, `"reason":"content_filter"`, 1)
		events, err := providertest.DecodeAll(&openai.ResponsesDecoder{}, []byte(body))
		Expect(err).NotTo(HaveOccurred())
		Expect(providertest.Summarize(events).Finish).To(Equal(llm.FinishContentFilter))
	})

	It("shows refusal deltas and a refusal reported only when done as text", func() {
		s, events, err := decode("openai-responses-refusal-spec-fragments.sse")
		Expect(providertest.CheckGrammar(events)).To(Succeed())
		Expect(s.Text).To(Equal("refusal text so far" + "final refusal text"))
		Expect(err).To(HaveOccurred(), "the fragments never reach a terminal event")
	})
})

var _ = Describe("ResponsesDecoder", func() {
	It("round-trips a scripted turn with reasoning, text and parallel calls", func() {
		turn := providertest.Turn{ID: "resp_1", Thinking: []string{"Think ", "hard."}, Signature: "enc-1",
			Text: providertest.Words("Reading both files now."),
			Calls: []providertest.Call{
				{ID: "call_1", Name: "read_file", Arguments: []string{`{"path":`, `"a.go"}`}},
				{ID: "call_2", Name: "read_file", Arguments: []string{`{"path":"b.go"}`}},
			},
			Usage: providertest.Usage{Input: 100, CacheRead: 900, Output: 50, Reasoning: 20}}
		events, err := providertest.DecodeAll(&openai.ResponsesDecoder{}, providertest.ResponsesSSE(turn))
		Expect(err).NotTo(HaveOccurred())
		Expect(providertest.CheckGrammar(events)).To(Succeed())
		s := providertest.Summarize(events)
		Expect(s.Thinking).To(Equal("Think hard."))
		Expect(s.Text).To(Equal("Reading both files now."))
		Expect(s.Calls).To(HaveLen(2))
		Expect(s.Calls[0].Arguments).To(Equal(`{"path":"a.go"}`))
		Expect(s.Calls[1].CallID).To(Equal("call_2"))
		Expect(s.Finish).To(Equal(llm.FinishToolUse))
		Expect(*s.Usage).To(Equal(llm.Usage{Input: 100, CacheRead: 900, Output: 50, Reasoning: 20,
			Known: llm.UsageInput | llm.UsageOutput | llm.UsageCacheRead | llm.UsageReasoning}))
		Expect(s.Replay.Kind).To(Equal(llm.ProviderOpenAIResponses))
		Expect(string(s.Replay.Value)).To(Equal(
			`{"items":[{"type":"reasoning","id":"rs_0","summary":[{"type":"summary_text","text":"Think hard."}],"encrypted_content":"enc-1"}]}`))
	})

	It("does not replay an item's text when it is reported done twice", func() {
		body := strings.Join([]string{
			`data: {"type":"response.output_text.delta","output_index":0,"delta":"Hel"}`,
			`data: {"type":"response.output_text.done","output_index":0,"text":"Hello"}`,
			`data: {"type":"response.output_item.done","output_index":0,"item":{"type":"message","content":[{"type":"output_text","text":"Hello"}]}}`,
			`data: {"type":"response.completed","response":{"id":"r"}}`, ""}, "\n\n")
		events, err := providertest.DecodeAll(&openai.ResponsesDecoder{}, []byte(body))
		Expect(err).NotTo(HaveOccurred())
		Expect(providertest.CheckGrammar(events)).To(Succeed())
		Expect(providertest.Summarize(events).Text).To(Equal("Hello"))
	})

	It("reconciles a later output item against its own text, not the first item's", func() {
		body := strings.Join([]string{
			`data: {"type":"response.output_text.delta","output_index":0,"delta":"One."}`,
			`data: {"type":"response.output_text.done","output_index":0,"text":"One."}`,
			`data: {"type":"response.output_text.delta","output_index":1,"delta":"Tw"}`,
			`data: {"type":"response.output_item.done","output_index":1,"item":{"type":"message","content":[{"type":"output_text","text":"Two."}]}}`,
			`data: {"type":"response.completed","response":{"id":"r"}}`, ""}, "\n\n")
		events, err := providertest.DecodeAll(&openai.ResponsesDecoder{}, []byte(body))
		Expect(err).NotTo(HaveOccurred())
		Expect(providertest.Summarize(events).Text).To(Equal("One.Two."))
	})

	It("rejects final tool arguments that contradict the streamed ones", func() {
		body := strings.Join([]string{
			`data: {"type":"response.output_item.added","output_index":0,"item":{"type":"function_call","call_id":"c","name":"f"}}`,
			`data: {"type":"response.function_call_arguments.delta","output_index":0,"delta":"{\"a\":1"}`,
			`data: {"type":"response.function_call_arguments.done","output_index":0,"arguments":"{\"b\":2}"}`, ""}, "\n\n")
		_, err := providertest.DecodeAll(&openai.ResponsesDecoder{}, []byte(body))
		Expect(err).To(MatchError(ContainSubstring("final tool arguments do not match streamed arguments")))
	})

	It("finishes a stream that lost its terminal event after a completed item", func() {
		body := providertest.ResponsesSSE(providertest.Turn{Text: []string{"ok"}})
		body = body[:strings.LastIndex(string(body), "event: response.completed")]
		events, err := providertest.DecodeAll(&openai.ResponsesDecoder{}, body)
		Expect(err).NotTo(HaveOccurred())
		Expect(providertest.Summarize(events).Finish).To(Equal(llm.FinishStop))
	})
})
