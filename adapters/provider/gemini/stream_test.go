package gemini_test

import (
	"errors"
	"os"
	"path/filepath"
	"strings"

	. "github.com/onsi/ginkgo/v2"
	. "github.com/onsi/gomega"

	"keygate/adapters/provider/gemini"
	"keygate/adapters/provider/providertest"
	"keygate/domain/llm"
)

// sse frames each payload as Google does: data-only events ended by CRLF.
func sse(payloads ...string) []byte {
	var b strings.Builder
	for _, p := range payloads {
		b.WriteString("data: " + p + "\r\n\r\n")
	}
	return []byte(b.String())
}

func fixture(name string) []byte {
	raw, err := os.ReadFile(filepath.Join("..", "testdata", name))
	ExpectWithOffset(1, err).NotTo(HaveOccurred())
	return raw
}

func decode(body []byte) (providertest.Summary, []llm.Event, error) {
	events, err := providertest.DecodeAll(gemini.API().NewDecoder(), body)
	return providertest.Summarize(events), events, err
}

func class(err error) llm.ErrorClass {
	var perr *llm.ProviderError
	ExpectWithOffset(1, errors.As(err, &perr)).To(BeTrue(), "want *llm.ProviderError, got %v", err)
	return perr.Class
}

const chunkText = `{"candidates":[{"content":{"parts":[{"text":"Hi"}],"role":"model"},"index":0}],"responseId":"r1","modelVersion":"gemini-2.5-flash"}`

func finishing(reason string) string {
	return `{"candidates":[{"content":{"parts":[{"text":""}],"role":"model"},"finishReason":"` + reason + `","index":0}],"usageMetadata":{"promptTokenCount":4,"candidatesTokenCount":1,"totalTokenCount":5},"responseId":"r1"}`
}

var _ = Describe("The Gemini decoder", func() {
	It("reads thoughts as thinking, text, the cached and thought token counts, and the text's signature as replay state", func() {
		s, events, err := decode(fixture("gemini-text-thinking-docs.sse"))
		Expect(err).NotTo(HaveOccurred())
		Expect(providertest.CheckGrammar(events)).To(Succeed())
		Expect(s.Thinking).To(Equal("**Greeting the user**\n\nA short, friendly answer will do."))
		Expect(s.Text).To(Equal("Hello! How can I help you today?"))
		Expect(s.Finish).To(Equal(llm.FinishStop))
		Expect(*s.Usage).To(Equal(llm.Usage{Input: 53, CacheRead: 2048, Output: 39, Reasoning: 30,
			Known: llm.UsageInput | llm.UsageCacheRead | llm.UsageOutput | llm.UsageReasoning}),
			"the prompt's 2101 less the 2048 cached; the 9 answer tokens plus the 30 thought ones")
		Expect(s.Replay).To(Equal(&llm.ReplayState{Kind: llm.ProviderGemini,
			Value: []byte(`{"text":"CiQB0e2Kb1Yw0XkT2v2xrjUXmXq3dC4D9H1yB0h3jwR6oJ0Zy9E="}`)}))
	})

	It("mints a call id per function call from the response id, and keeps the first call's signature with its place", func() {
		s, events, err := decode(fixture("gemini-parallel-calls-docs.sse"))
		Expect(err).NotTo(HaveOccurred())
		Expect(providertest.CheckGrammar(events)).To(Succeed())
		Expect(s.Calls).To(Equal([]providertest.SummaryCall{
			{Index: 0, CallID: "fc_c3Rva2VuLXBhcmFsbGVs_0", Name: "read_file", Arguments: `{"path":"main.go"}`, Ended: true},
			{Index: 1, CallID: "fc_c3Rva2VuLXBhcmFsbGVs_1", Name: "grep", Arguments: `{"pattern":"TODO"}`, Ended: true},
		}))
		Expect(s.Finish).To(Equal(llm.FinishToolUse), "Gemini says STOP; the calls make it a tool round")
		Expect(string(s.Replay.Value)).To(Equal(`{"calls":[{"index":0,"signature":"CiwB0e2Kb3sigA"}]}`))
	})

	It("sends a decoded turn's signatures back on the same parts, byte for byte", func() {
		s, _, err := decode(fixture("gemini-parallel-calls-docs.sse"))
		Expect(err).NotTo(HaveOccurred())
		a := &llm.Assistant{Replay: s.Replay}
		for _, c := range s.Calls {
			a.Calls = append(a.Calls, llm.ToolCall{Index: c.Index, CallID: c.CallID, Name: c.Name, Arguments: []byte(c.Arguments)})
		}
		req := llm.Request{Model: "gemini-3-pro-preview", Messages: []llm.Message{user("go"), {Role: llm.RoleAssistant, Assistant: a},
			result(s.Calls[0].CallID, "read_file", "x"), result(s.Calls[1].CallID, "grep", "y")}}
		b := string(body(req))
		Expect(b).To(ContainSubstring(`{"functionCall":{"name":"read_file","args":{"path":"main.go"}},"thoughtSignature":"CiwB0e2Kb3sigA"},{"functionCall":{"name":"grep","args":{"pattern":"TODO"}}}`))
	})

	It("ends a turn whose prompt was blocked as a content filter naming the reason", func() {
		s, events, err := decode(fixture("gemini-prompt-blocked-docs.sse"))
		Expect(err).NotTo(HaveOccurred())
		Expect(providertest.CheckGrammar(events)).To(Succeed())
		Expect(s.Finish).To(Equal(llm.FinishContentFilter))
		Expect(s.Filter).To(Equal([]llm.FilterHit{{Category: "prohibited_content"}}))
	})

	DescribeTable("collapses finishReason",
		func(reason string, want llm.FinishReason, filter string) {
			s, events, err := decode(sse(chunkText, finishing(reason)))
			Expect(err).NotTo(HaveOccurred())
			Expect(providertest.CheckGrammar(events)).To(Succeed())
			Expect(s.Finish).To(Equal(want))
			if filter != "" {
				Expect(s.Filter).To(Equal([]llm.FilterHit{{Category: filter}}))
			}
		},
		Entry("STOP", "STOP", llm.FinishStop, ""),
		Entry("MAX_TOKENS", "MAX_TOKENS", llm.FinishLength, ""),
		Entry("SAFETY", "SAFETY", llm.FinishContentFilter, "safety"),
		Entry("RECITATION", "RECITATION", llm.FinishContentFilter, "recitation"),
		Entry("PROHIBITED_CONTENT", "PROHIBITED_CONTENT", llm.FinishContentFilter, "prohibited_content"),
	)

	It("fails a malformed function call instead of finishing, and a filter never authorizes calls", func() {
		_, _, err := decode(sse(chunkText, finishing("MALFORMED_FUNCTION_CALL")))
		Expect(err).To(MatchError(ContainSubstring("MALFORMED_FUNCTION_CALL")))
		Expect(class(err)).To(Equal(llm.ErrorTransient))
		call := `{"candidates":[{"content":{"parts":[{"functionCall":{"name":"rm","args":{}}}],"role":"model"},"finishReason":"SAFETY","index":0}]}`
		_, _, err = decode(sse(call))
		Expect(class(err)).To(Equal(llm.ErrorContentFilter))
	})

	It("classifies an error sent inside the stream by its status", func() {
		_, _, err := decode(append(sse(chunkText), providertest.GeminiError(429, "RESOURCE_EXHAUSTED", "Resource has been exhausted (e.g. check quota).")...))
		Expect(class(err)).To(Equal(llm.ErrorRateLimit))
		_, _, err = decode(providertest.GeminiError(503, "UNAVAILABLE", "The model is overloaded. Please try again later."))
		Expect(class(err)).To(Equal(llm.ErrorTransient))
		_, _, err = decode(providertest.GeminiError(400, "INVALID_ARGUMENT", "Request contains an invalid argument."))
		Expect(class(err)).To(Equal(llm.ErrorBadRequest))
	})

	It("is a protocol error when the stream ends before a finishReason, or is empty", func() {
		_, _, err := decode(sse(chunkText))
		Expect(err).To(MatchError(ContainSubstring("without finishReason")))
		Expect(class(err)).To(Equal(llm.ErrorProtocol))
		_, _, err = decode(nil)
		Expect(class(err)).To(Equal(llm.ErrorProtocol))
	})

	It("decodes what the fake provider's builder renders, usage and cache reads included", func() {
		turn := providertest.Turn{ID: "resp-9", Model: "gemini-2.5-pro", Thinking: []string{"Let me ", "look."}, Signature: "c2ln",
			Text: providertest.Words("Reading it now."), Calls: []providertest.Call{{ID: "ignored", Name: "read_file", Arguments: []string{`{"path":`, `"a.go"}`}}},
			Usage: providertest.Usage{Input: 10, CacheRead: 90, Output: 20, Reasoning: 5}}
		dec := gemini.API().NewDecoder()
		events, err := providertest.DecodeAll(dec, providertest.GeminiSSE(turn))
		Expect(err).NotTo(HaveOccurred())
		Expect(providertest.CheckGrammar(events)).To(Succeed())
		s := providertest.Summarize(events)
		Expect(s.Thinking).To(Equal("Let me look."))
		Expect(s.Text).To(Equal("Reading it now."))
		Expect(s.Calls).To(Equal([]providertest.SummaryCall{{Index: 0, CallID: "fc_resp-9_0", Name: "read_file", Arguments: `{"path":"a.go"}`, Ended: true}}))
		Expect(s.Finish).To(Equal(llm.FinishToolUse))
		Expect([]int64{s.Usage.Input, s.Usage.CacheRead, s.Usage.Output, s.Usage.Reasoning}).To(Equal([]int64{10, 90, 20, 5}))
		id, model := dec.Meta()
		Expect([]string{id, model}).To(Equal([]string{"resp-9", "gemini-2.5-pro"}))
	})
})
