package openai_test

import (
	"encoding/json"
	"path/filepath"

	. "github.com/onsi/ginkgo/v2"
	. "github.com/onsi/gomega"

	"keygate/adapters/provider/compat"
	"keygate/adapters/provider/openai"
	"keygate/adapters/provider/providertest"
	"keygate/adapters/provider/wire"
	"keygate/domain/llm"
)

type builder func(dst []byte, req llm.Request, o openai.Options) ([]byte, error)

var _ = Describe("Request bodies", func() {
	for _, c := range []struct {
		name     string
		kind     llm.ProviderKind
		reserved []string
		build    builder
		array    string
		golden   string
	}{
		{"AppendChat", llm.ProviderOpenAIChat, openai.Chat().Reserved, openai.AppendChat, "messages", "chat.golden.json"},
		{"AppendResponses", llm.ProviderOpenAIResponses, openai.Responses().Reserved, openai.AppendResponses, "input", "responses.golden.json"},
	} {
		Describe(c.name, func() {
			var reqs []llm.Request

			BeforeEach(func() {
				reqs = providertest.Conversation(c.kind)
			})

			It("matches the golden body for the last cycle of a conversation with tools, thinking and images", func() {
				body, err := c.build(nil, reqs[len(reqs)-1], openai.Options{})
				Expect(err).NotTo(HaveOccurred())
				Expect(json.Valid(body)).To(BeTrue())
				Expect(providertest.Golden(filepath.Join("..", "testdata", c.golden), body)).To(Succeed())
			})

			It("serialises one request to identical bytes every time", func() {
				first, err := c.build(nil, reqs[2], openai.Options{})
				Expect(err).NotTo(HaveOccurred())
				for range 3 {
					again, err := c.build(make([]byte, 0, 16), reqs[2], openai.Options{})
					Expect(err).NotTo(HaveOccurred())
					Expect(again).To(Equal(first))
				}
			})

			It("keeps every cycle's history element for element at the start of the next cycle", func() {
				for n := 0; n+1 < len(reqs); n++ {
					a, err := c.build(nil, reqs[n], openai.Options{})
					Expect(err).NotTo(HaveOccurred())
					b, err := c.build(nil, reqs[n+1], openai.Options{})
					Expect(err).NotTo(HaveOccurred())
					ea, err := providertest.Elements(a, c.array)
					Expect(err).NotTo(HaveOccurred())
					eb, err := providertest.Elements(b, c.array)
					Expect(err).NotTo(HaveOccurred())
					Expect(len(eb)).To(BeNumerically(">", len(ea)))
					Expect(eb[:len(ea)]).To(Equal(ea), "cycle %d", n)
				}
			})

			It("merges extra parameters without letting them replace the conversation", func() {
				extras, err := wire.ParseExtras([]byte(`{"temperature":0.2,"service_tier":"flex"}`), c.reserved)
				Expect(err).NotTo(HaveOccurred())
				req := reqs[0]
				req.ServiceTier = "fast"
				body, err := c.build(nil, req, openai.Options{Extras: extras})
				Expect(err).NotTo(HaveOccurred())
				var top map[string]json.RawMessage
				Expect(json.Unmarshal(body, &top)).To(Succeed())
				Expect(string(top["temperature"])).To(Equal("0.2"))
				Expect(string(top["service_tier"])).To(Equal(`"flex"`))
				for _, field := range []string{"model", c.array} {
					_, err = wire.ParseExtras([]byte(`{"`+field+`":"other"}`), c.reserved)
					Expect(err).To(MatchError(wire.ErrReservedParam), field)
				}
			})
		})
	}
})

var _ = Describe("AppendChat", func() {
	body := func(req llm.Request, q compat.Quirks) map[string]json.RawMessage {
		b, err := openai.AppendChat(nil, req, openai.Options{Quirks: q})
		Expect(err).NotTo(HaveOccurred())
		var top map[string]json.RawMessage
		Expect(json.Unmarshal(b, &top)).To(Succeed())
		return top
	}
	messages := func(top map[string]json.RawMessage) []map[string]json.RawMessage {
		var msgs []map[string]json.RawMessage
		Expect(json.Unmarshal(top["messages"], &msgs)).To(Succeed())
		return msgs
	}
	toolTurn := func(replay *llm.ReplayState, thinking string) llm.Request {
		return llm.Request{Model: "m", Messages: []llm.Message{
			{Role: llm.RoleUser, Parts: []llm.Part{{Kind: llm.PartText, Text: "hi"}}},
			{Role: llm.RoleAssistant, Assistant: &llm.Assistant{Thinking: thinking, Replay: replay,
				Calls: []llm.ToolCall{{CallID: "c1", Name: "f", Arguments: []byte(`{}`)}}}},
			{Role: llm.RoleTool, ToolResult: &llm.ToolResult{CallID: "c1", Content: "r"}},
		}}
	}

	It("sends content null for an assistant turn that only called tools", func() {
		msgs := messages(body(toolTurn(nil, ""), compat.Quirks{}))
		Expect(string(msgs[1]["content"])).To(Equal("null"))
	})

	It("omits an assistant turn with no text, calls or reasoning", func() {
		req := llm.Request{Model: "m", Messages: []llm.Message{
			{Role: llm.RoleUser, Parts: []llm.Part{{Kind: llm.PartText, Text: "hi"}}},
			{Role: llm.RoleAssistant, Assistant: &llm.Assistant{Thinking: "hm"}},
		}}
		Expect(messages(body(req, compat.Quirks{}))).To(HaveLen(1))
	})

	It("gives other models no foreign reasoning fields", func() {
		replay := &llm.ReplayState{Kind: llm.ProviderAnthropic, Value: []byte(`{"blocks":[]}`)}
		msgs := messages(body(toolTurn(replay, "thought"), compat.Quirks{}))
		Expect(msgs[1]).NotTo(HaveKey("reasoning_content"))
	})

	It("prefers native Chat replay over the projected thinking text", func() {
		replay := &llm.ReplayState{Kind: llm.ProviderOpenAIChat, Value: []byte(`{"reasoning_content":"native"}`)}
		msgs := messages(body(toolTurn(replay, "projected"), compat.Quirks{DeepSeek: true}))
		Expect(string(msgs[1]["reasoning_content"])).To(Equal(`"native"`))
	})

	It("sends a call's extra_content (a Gemini 3 thought signature) back to Gemini's endpoint only", func() {
		q := compat.Detect("gemini-3-flash-preview", "https://generativelanguage.googleapis.com/v1beta/openai/chat/completions")
		replay := &llm.ReplayState{Kind: llm.ProviderOpenAIChat,
			Value: []byte(`{"extra_content":{"c1":{"google":{"thought_signature":"c2ln"}}}}`)}
		var calls []map[string]json.RawMessage
		msgs := messages(body(toolTurn(replay, ""), q))
		Expect(json.Unmarshal(msgs[1]["tool_calls"], &calls)).To(Succeed())
		Expect(string(calls[0]["extra_content"])).To(Equal(`{"google":{"thought_signature":"c2ln"}}`))
		Expect(msgs[1]).NotTo(HaveKey("reasoning_content"), "the replay held no reasoning")

		msgs, calls = messages(body(toolTurn(replay, ""), compat.Quirks{})), nil
		Expect(json.Unmarshal(msgs[1]["tool_calls"], &calls)).To(Succeed())
		Expect(calls[0]).NotTo(HaveKey("extra_content"))
	})

	It("sends no prompt_cache_key where the endpoint rejects it", func() {
		req := toolTurn(nil, "")
		req.CacheKey = "conv"
		Expect(body(req, compat.Quirks{})).To(HaveKeyWithValue("prompt_cache_key", json.RawMessage(`"conv"`)))
		Expect(body(req, compat.Quirks{NoCacheKey: true})).NotTo(HaveKey("prompt_cache_key"))
		gemini := compat.Detect("gemini-2.5-flash", "https://generativelanguage.googleapis.com/v1beta/openai/chat/completions")
		Expect(body(req, gemini)).NotTo(HaveKey("prompt_cache_key"), `Gemini answers 400 "Unknown name \"prompt_cache_key\""`)
	})

	It("shortens a conversation cache key beyond 64 bytes to a stable digest", func() {
		long := string(make([]byte, 100))
		Expect(openai.CacheKey(long)).To(HaveLen(64))
		Expect(openai.CacheKey(long)).To(Equal(openai.CacheKey(long)))
		Expect(openai.CacheKey("short")).To(Equal("short"))
	})

	Describe("compatible endpoint quirks", func() {
		It("DeepSeek receives the thinking text as reasoning_content when switching from Responses", func() {
			replay := &llm.ReplayState{Kind: llm.ProviderOpenAIResponses, Value: []byte(`{"items":[]}`)}
			q := compat.Detect("deepseek-reasoner", "https://api.deepseek.com/v1/chat/completions")
			msgs := messages(body(toolTurn(replay, "I should call f."), q))
			Expect(string(msgs[1]["reasoning_content"])).To(Equal(`"I should call f."`))
		})

		It("DeepSeek receives an empty reasoning_content on a tool turn without thinking", func() {
			q := compat.Detect("deepseek-chat", "https://api.deepseek.com")
			msgs := messages(body(toolTurn(nil, ""), q))
			Expect(string(msgs[1]["reasoning_content"])).To(Equal(`""`))
		})

		It("Kimi drops thinking-only assistant turns and gets required:[] in tool schemas", func() {
			q := compat.Detect("kimi-k2.6", "https://api.moonshot.cn/v1/chat/completions")
			Expect(q.Kimi).To(BeTrue())
			req := llm.Request{Model: "kimi-k2.6",
				Tools: []llm.Tool{{Name: "a", Parameters: []byte(`{"type":"object","properties":{}}`)},
					{Name: "b", Parameters: []byte(`{"type":"object","required":null}`)}},
				Messages: []llm.Message{
					{Role: llm.RoleUser, Parts: []llm.Part{{Kind: llm.PartText, Text: "hi"}}},
					{Role: llm.RoleAssistant, Assistant: &llm.Assistant{Replay: &llm.ReplayState{
						Kind: llm.ProviderOpenAIChat, Value: []byte(`{"reasoning_content":"only thought"}`)}}},
				}}
			top := body(req, q)
			Expect(messages(top)).To(HaveLen(1))
			Expect(string(top["tools"])).To(Equal(`[{"type":"function","function":{"name":"a","parameters":{"type":"object","properties":{},"required":[]}}},` +
				`{"type":"function","function":{"name":"b","parameters":{"type":"object","required":[]}}}]`))
		})

		DescribeTable("turning thinking off follows the vendor's switch",
			func(model, url, key, value string) {
				req := llm.Request{Model: model, Reasoning: llm.Reasoning{}}
				top := body(req, compat.Detect(model, url))
				Expect(top).NotTo(HaveKey("reasoning_effort"))
				if key == "" {
					Expect(top).NotTo(HaveKey("thinking"))
					Expect(top).NotTo(HaveKey("enable_thinking"))
					return
				}
				Expect(string(top[key])).To(Equal(value))
			},
			Entry("GLM on Zhipu's own host sends thinking disabled", "glm-4.6", "https://open.bigmodel.cn/api/paas/v4/chat/completions", "thinking", `{"type":"disabled"}`),
			Entry("GLM on a third-party relay sends nothing", "glm-4.6", "https://relay.example.com/v1/chat/completions", "", ""),
			Entry("DeepSeek sends thinking disabled", "deepseek-chat", "https://api.deepseek.com/chat/completions", "thinking", `{"type":"disabled"}`),
			Entry("Qwen on DashScope sends enable_thinking false", "qwen3-max", "https://dashscope.aliyuncs.com/compatible-mode/v1/chat/completions", "enable_thinking", `false`),
			Entry("OpenRouter sends a reasoning object with effort none", "anthropic/claude-sonnet-4.5", "https://openrouter.ai/api/v1/chat/completions", "reasoning", `{"effort":"none"}`),
			Entry("OpenAI sends nothing", "gpt-5.1", "https://api.openai.com/v1/chat/completions", "", ""),
		)

		It("an effort is sent as reasoning_effort", func() {
			req := llm.Request{Model: "gpt-5.1", Reasoning: llm.Reasoning{Enabled: true, Effort: "high"}}
			Expect(string(body(req, compat.Quirks{})["reasoning_effort"])).To(Equal(`"high"`))
		})
	})
})

var _ = Describe("AppendResponses", func() {
	top := func(req llm.Request) map[string]json.RawMessage {
		b, err := openai.AppendResponses(nil, req, openai.Options{})
		Expect(err).NotTo(HaveOccurred())
		var m map[string]json.RawMessage
		Expect(json.Unmarshal(b, &m)).To(Succeed())
		return m
	}

	It("writes the fast tier as OpenAI's priority processing and passes other tiers through", func() {
		Expect(string(top(llm.Request{Model: "gpt-5.5", ServiceTier: llm.ServiceTierFast})["service_tier"])).To(Equal(`"priority"`))
		Expect(string(top(llm.Request{Model: "gpt-5.5", ServiceTier: "flex"})["service_tier"])).To(Equal(`"flex"`))
		b, err := openai.AppendChat(nil, llm.Request{Model: "gpt-5.5", ServiceTier: llm.ServiceTierFast}, openai.Options{})
		Expect(err).NotTo(HaveOccurred())
		Expect(string(b)).To(ContainSubstring(`"service_tier":"priority"`))
	})

	It("asks no reasoning summary when the effort is none", func() {
		Expect(string(top(llm.Request{Model: "gpt-5.5", Reasoning: llm.Reasoning{Effort: "none"}})["reasoning"])).To(Equal(`{"effort":"none"}`))
	})

	It("omits the reasoning object when reasoning is off and the effort is blank", func() {
		Expect(top(llm.Request{Model: "gpt-5.1"})).NotTo(HaveKey("reasoning"))
		Expect(string(top(llm.Request{Model: "gpt-5.1", Reasoning: llm.Reasoning{Enabled: true}})["reasoning"])).
			To(Equal(`{"summary":"auto"}`))
	})

	It("projects a stored reasoning item to exactly the fields valid on input", func() {
		req := llm.Request{Model: "gpt-5.1", Messages: []llm.Message{{Role: llm.RoleAssistant, Assistant: &llm.Assistant{
			Text: "ok", Replay: &llm.ReplayState{Kind: llm.ProviderOpenAIResponses, Value: []byte(
				`{"items":[{"type":"reasoning","id":"rs_1","status":"completed","summary":[],"encrypted_content":"e","extra":1}]}`)}}}}}
		var input []json.RawMessage
		Expect(json.Unmarshal(top(req)["input"], &input)).To(Succeed())
		Expect(string(input[0])).To(Equal(`{"type":"reasoning","id":"rs_1","summary":[],"encrypted_content":"e"}`))
	})

	It("never replays Chat or Anthropic reasoning into Responses input", func() {
		req := llm.Request{Model: "gpt-5.1", Messages: []llm.Message{{Role: llm.RoleAssistant, Assistant: &llm.Assistant{
			Text: "ok", Thinking: "t", Replay: &llm.ReplayState{Kind: llm.ProviderOpenAIChat, Value: []byte(`{"reasoning_content":"t"}`)}}}}}
		Expect(string(top(req)["input"])).To(Equal(`[{"type":"message","role":"assistant","content":[{"type":"output_text","text":"ok"}]}]`))
	})
})
