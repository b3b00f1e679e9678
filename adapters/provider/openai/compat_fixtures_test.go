package openai_test

import (
	"encoding/json"
	"strings"

	. "github.com/onsi/ginkgo/v2"
	. "github.com/onsi/gomega"

	"keygate/adapters/provider/openai"
	"keygate/adapters/provider/providertest"
	"keygate/domain/llm"
)

// The compatible servers' streams (testdata/SOURCES.md §4c): each fixture
// is constructed from the server's documented or source-code shape, and
// each spec pins what Keygate makes of it.
var _ = Describe("ChatDecoder on compatible servers' streams (testdata/SOURCES.md §4c)", func() {
	decode := func(name string) (providertest.Summary, []llm.Event) {
		events, err := providertest.DecodeAll(&openai.ChatDecoder{}, fixture(name))
		Expect(err).NotTo(HaveOccurred(), name)
		Expect(providertest.CheckGrammar(events)).To(Succeed(), name)
		return providertest.Summarize(events), events
	}
	counts := func(u *llm.Usage) []int64 {
		Expect(u).NotTo(BeNil())
		return []int64{u.Input, u.CacheRead, u.Output}
	}

	It("Ollama: reads its reasoning field as thinking, whole-argument parallel calls by index and the usage-only last chunk", func() {
		s, _ := decode("compat-ollama-parallel-tool-calls-source.sse")
		Expect(s.Thinking).To(Equal("The user wants both listings, so I will run two commands."))
		Expect(s.Text).To(BeEmpty(), "Ollama's empty content strings open no text block")
		Expect(s.Calls).To(Equal([]providertest.SummaryCall{
			{Index: 0, CallID: "call_wteop8bt", Name: "run_command", Arguments: `{"command":"ls"}`, Ended: true},
			{Index: 1, CallID: "call_rk2xye1l", Name: "run_command", Arguments: `{"command":"ls -l"}`, Ended: true},
		}))
		Expect(s.Finish).To(Equal(llm.FinishToolUse))
		Expect(counts(s.Usage)).To(Equal([]int64{172, 0, 41}))
		Expect(s.ModelCallID).To(Equal("chatcmpl-18"))
	})

	It("vLLM: reads reasoning_content, a call whose first fragment has no arguments, and the usage chunk include_usage asks for", func() {
		s, _ := decode("compat-vllm-reasoning-tool-call-source.sse")
		Expect(s.Thinking).To(Equal("The user asks for the weather in Paris."))
		Expect(s.Calls).To(Equal([]providertest.SummaryCall{
			{Index: 0, CallID: "chatcmpl-tool-5c2b8e4f1a9d4c7e", Name: "get_weather", Arguments: `{"city": "Paris"}`, Ended: true},
		}))
		Expect(s.Finish).To(Equal(llm.FinishToolUse))
		Expect(counts(s.Usage)).To(Equal([]int64{190, 0, 31}))
		Expect(s.Replay).NotTo(BeNil(), "the reasoning goes back to the server on the next turn")
		Expect(string(s.Replay.Value)).To(Equal(`{"reasoning_content":"The user asks for the weather in Paris."}`))
	})

	It("LM Studio: assembles arguments streamed in six fragments under a numeric-string call id", func() {
		s, _ := decode("compat-lmstudio-tool-call-docs.sse")
		Expect(s.Text).To(Equal("Let me look that up."))
		Expect(s.Calls).To(Equal([]providertest.SummaryCall{
			{Index: 0, CallID: "814890118", Name: "get_delivery_date", Arguments: `{"order_id":"1017"}`, Ended: true},
		}))
		Expect(s.Finish).To(Equal(llm.FinishToolUse))
		Expect(counts(s.Usage)).To(Equal([]int64{215, 0, 27}))
	})

	It("llama.cpp: reads a null first content, reasoning_content, and usage from the last chunk that also carries timings", func() {
		s, _ := decode("compat-llamacpp-chat-tool-call-source.sse")
		Expect(s.Thinking).To(Equal("Need to read the file."))
		Expect(s.Text).To(Equal("Reading it now."))
		Expect(s.Calls).To(Equal([]providertest.SummaryCall{
			{Index: 0, CallID: "Qx3rT9vLm2KpW8nZc4YhB6dFs1JgE0aU", Name: "read_file", Arguments: `{"path":"main.go"}`, Ended: true},
		}))
		Expect(s.Finish).To(Equal(llm.FinishToolUse))
		Expect(counts(s.Usage)).To(Equal([]int64{1085, 0, 38}), "timings.cache_n is not a usage count")
		Expect(s.ModelCallID).To(Equal("chatcmpl-DHvcEyFobkuV4Xu1QSYo4bqNv18TDqaA"))
	})

	It("llama.cpp before include_usage support: reads usage from the finish chunk that also carries timings", func() {
		// The finish chunk of build b6097 as published in g0t4/ask-openai.nvim (lua/ask-openai/rewrites/harmony/NOTES.md).
		body := strings.Join([]string{
			`data: {"choices":[{"finish_reason":null,"index":0,"delta":{"role":"assistant","content":null}}],"created":1754524122,"id":"chatcmpl-yPk7z9nC22CofOlh100qQdHVEDMNYCb1","model":"gpt-oss:20b","system_fingerprint":"b6097-9515c613","object":"chat.completion.chunk"}`,
			`data: {"choices":[{"finish_reason":null,"index":0,"delta":{"content":"Hello!"}}],"created":1754524122,"id":"chatcmpl-yPk7z9nC22CofOlh100qQdHVEDMNYCb1","model":"gpt-oss:20b","system_fingerprint":"b6097-9515c613","object":"chat.completion.chunk"}`,
			`data: {"choices":[{"finish_reason":"stop","index":0,"delta":{}}],"created":1754524122,"id":"chatcmpl-yPk7z9nC22CofOlh100qQdHVEDMNYCb1","model":"gpt-oss:20b","system_fingerprint":"b6097-9515c613","object":"chat.completion.chunk","usage":{"completion_tokens":247,"prompt_tokens":1085,"total_tokens":1332},"timings":{"prompt_n":1085,"prompt_ms":203.378,"prompt_per_token_ms":0.18744516129032257,"prompt_per_second":5334.893646313762,"predicted_n":247,"predicted_ms":933.63,"predicted_per_token_ms":3.7798785425101213,"predicted_per_second":264.5587652496171}}`,
			`data: [DONE]`, ""}, "\n\n")
		events, err := providertest.DecodeAll(&openai.ChatDecoder{}, []byte(body))
		Expect(err).NotTo(HaveOccurred())
		Expect(providertest.CheckGrammar(events)).To(Succeed())
		s := providertest.Summarize(events)
		Expect(s.Text).To(Equal("Hello!"))
		Expect(s.Finish).To(Equal(llm.FinishStop))
		Expect(counts(s.Usage)).To(Equal([]int64{1085, 0, 247}))
	})

	It("Gemini's OpenAI-compatible endpoint: tells index-less calls in separate chunks apart by id, and a stop finish with calls is tool use", func() {
		s, _ := decode("compat-gemini-openai-indexless-calls-docs.sse")
		Expect(s.Text).To(Equal("I will check both cities."))
		Expect(s.Calls).To(Equal([]providertest.SummaryCall{
			{Index: 0, CallID: "function-call-9151620371397370125", Name: "get_weather", Arguments: `{"city":"Paris"}`, Ended: true},
			{Index: 1, CallID: "function-call-9151620371397370126", Name: "get_weather", Arguments: `{"city":"London"}`, Ended: true},
		}))
		Expect(s.Finish).To(Equal(llm.FinishToolUse))
		Expect(counts(s.Usage)).To(Equal([]int64{112, 0, 24}))
		Expect(s.Replay).NotTo(BeNil(), "the signed call's extra_content is kept for the next turn")
		Expect(string(s.Replay.Value)).To(Equal(`{"extra_content":{"function-call-9151620371397370125":` +
			`{"google":{"thought_signature":"CvsBAdHtim9zZmFrZS1zaWduYXR1cmUtb25lLW5vdC1yZWFs"}}}}`))
	})

	It("Gemini's OpenAI-compatible endpoint: an index-less fragment without an id continues the last call", func() {
		body := strings.Join([]string{
			`data: {"id":"g","choices":[{"delta":{"tool_calls":[{"id":"function-call-1","type":"function","function":{"name":"get_weather","arguments":"{\"location\":"}}]},"index":0}]}`,
			`data: {"id":"g","choices":[{"delta":{"tool_calls":[{"function":{"arguments":"\"Sydney\"}"}}]},"index":0}]}`,
			`data: {"id":"g","choices":[{"delta":{},"finish_reason":"stop","index":0}]}`,
			`data: [DONE]`, ""}, "\n\n")
		events, err := providertest.DecodeAll(&openai.ChatDecoder{}, []byte(body))
		Expect(err).NotTo(HaveOccurred())
		Expect(providertest.CheckGrammar(events)).To(Succeed())
		Expect(providertest.Summarize(events).Calls).To(Equal([]providertest.SummaryCall{
			{Index: 0, CallID: "function-call-1", Name: "get_weather", Arguments: `{"location":"Sydney"}`, Ended: true}}))
	})
})

var _ = Describe("ResponsesDecoder on llama.cpp's Responses emulation (testdata/SOURCES.md §4c)", func() {
	It("keys items by item_id when events carry no output_index, and takes the tail the final events add", func() {
		events, err := providertest.DecodeAll(&openai.ResponsesDecoder{}, fixture("compat-llamacpp-responses-parallel-calls-source.sse"))
		Expect(err).NotTo(HaveOccurred())
		Expect(providertest.CheckGrammar(events)).To(Succeed())
		s := providertest.Summarize(events)
		Expect(s.Thinking).To(Equal("Two files to read, both at once."))
		Expect(s.Text).To(Equal("Reading both files."), "the last token arrives only in output_text.done")
		Expect(s.Calls).To(HaveLen(2))
		Expect(s.Calls[0].CallID).To(Equal("call_Qx3rT9vLm2KpW8nZc4YhB6dFs1JgE0aU"), "the call id announced when the call was added")
		Expect(s.Calls[0].Arguments).To(Equal(`{"path":"a.go"}`))
		Expect(s.Calls[1].CallID).To(Equal("call_Hn5pK2wQ8rT1yU4iO7aS3dF6gJ9kL0zX"))
		Expect(s.Calls[1].Arguments).To(Equal(`{"path":"b.go"}`), "the rest of the arguments arrives only in output_item.done")
		Expect(s.Calls[0].Ended && s.Calls[1].Ended).To(BeTrue())
		Expect(s.Finish).To(Equal(llm.FinishToolUse))
		Expect(*s.Usage).To(Equal(llm.Usage{Input: 186, CacheRead: 1024, Output: 64,
			Known: llm.UsageInput | llm.UsageOutput | llm.UsageCacheRead}))
		Expect(s.ModelCallID).To(Equal("resp_9cX2mQ7vL0pT4wZ8"))
	})
})

var _ = Describe("The next request to llama.cpp's Responses emulation", func() {
	// llama.cpp turns a Responses request into a Chat one and rejects what
	// it cannot map: an assistant item without type "message", a reasoning
	// item without a non-empty content array, a call without call_id, name
	// and arguments (tools/server server-common.cpp,
	// convert_responses_to_chatcmpl).
	It("replays the turn in the item shapes its converter accepts, under the call ids it announced", func() {
		events, err := providertest.DecodeAll(&openai.ResponsesDecoder{}, fixture("compat-llamacpp-responses-parallel-calls-source.sse"))
		Expect(err).NotTo(HaveOccurred())
		s := providertest.Summarize(events)
		a := &llm.Assistant{Text: s.Text, Thinking: s.Thinking, Replay: s.Replay}
		for _, c := range s.Calls {
			a.Calls = append(a.Calls, llm.ToolCall{Index: c.Index, CallID: c.CallID, Name: c.Name, Arguments: []byte(c.Arguments)})
		}
		req := llm.Request{Model: "gpt-oss-20b", Messages: []llm.Message{
			{Role: llm.RoleUser, Parts: []llm.Part{{Kind: llm.PartText, Text: "read a.go and b.go"}}},
			{Role: llm.RoleAssistant, Assistant: a},
			{Role: llm.RoleTool, ToolResult: &llm.ToolResult{CallID: s.Calls[0].CallID, Content: "package a"}},
			{Role: llm.RoleTool, ToolResult: &llm.ToolResult{CallID: s.Calls[1].CallID, Content: "package b"}},
		}}
		b, err := openai.AppendResponses(nil, req, openai.Options{})
		Expect(err).NotTo(HaveOccurred())
		var body struct {
			Input []map[string]json.RawMessage `json:"input"`
		}
		Expect(json.Unmarshal(b, &body)).To(Succeed())
		types := []string{}
		for _, it := range body.Input {
			types = append(types, string(it["type"]))
		}
		Expect(types).To(Equal([]string{`"message"`, `"reasoning"`, `"message"`, `"function_call"`, `"function_call"`,
			`"function_call_output"`, `"function_call_output"`}))
		Expect(string(body.Input[1]["content"])).To(Equal(`[{"text":"Two files to read, both at once.","type":"reasoning_text"}]`),
			"the reasoning goes back as the content llama.cpp reads")
		Expect(string(body.Input[2]["role"])).To(Equal(`"assistant"`))
		Expect(string(body.Input[3]["call_id"])).To(Equal(`"call_Qx3rT9vLm2KpW8nZc4YhB6dFs1JgE0aU"`))
		Expect(string(body.Input[5]["call_id"])).To(Equal(string(body.Input[3]["call_id"])), "result and call pair up")
		Expect(string(body.Input[4]["arguments"])).To(Equal(`"{\"path\":\"b.go\"}"`))
	})
})
