package anthropic_test

import (
	"bytes"
	"encoding/json"
	"net/http"
	"path/filepath"

	. "github.com/onsi/ginkgo/v2"
	. "github.com/onsi/gomega"

	"keygate/adapters/provider/anthropic"
	"keygate/adapters/provider/providertest"
	"keygate/adapters/provider/wire"
	"keygate/domain/llm"
)

func build(req llm.Request) []byte {
	body, err := anthropic.AppendRequest(nil, req, anthropic.Options{})
	Expect(err).NotTo(HaveOccurred())
	Expect(json.Valid(body)).To(BeTrue())
	return body
}

func messages(body []byte) []json.RawMessage {
	m, err := providertest.Elements(body, "messages")
	Expect(err).NotTo(HaveOccurred())
	return m
}

// withoutBreakpoints removes cache_control markers: they mark where a cache
// entry ends and are not part of the cached prefix itself.
func withoutBreakpoints(elems []json.RawMessage) []string {
	out := make([]string, len(elems))
	for i, e := range elems {
		out[i] = string(bytes.ReplaceAll(e, []byte(`,"cache_control":{"type":"ephemeral"}`), nil))
	}
	return out
}

var _ = Describe("AppendRequest", func() {
	var reqs []llm.Request

	BeforeEach(func() {
		reqs = providertest.Conversation(llm.ProviderAnthropic)
	})

	It("matches the golden body for the last cycle of a conversation with tools, thinking and images", func() {
		Expect(providertest.Golden(filepath.Join("..", "testdata", "anthropic.golden.json"), build(reqs[len(reqs)-1]))).To(Succeed())
	})

	It("serialises one request to identical bytes every time", func() {
		first := build(reqs[2])
		for range 3 {
			Expect(build(reqs[2])).To(Equal(first))
		}
	})

	It("keeps every cycle's messages at the start of the next cycle, apart from the moving breakpoint", func() {
		for n := 0; n+1 < len(reqs); n++ {
			a, b := withoutBreakpoints(messages(build(reqs[n]))), withoutBreakpoints(messages(build(reqs[n+1])))
			Expect(len(b)).To(BeNumerically(">", len(a)))
			Expect(b[:len(a)]).To(Equal(a), "cycle %d", n)
		}
	})

	It("places cache breakpoints on the system block, the last tool and the last user block", func() {
		body := build(reqs[1])
		Expect(bytes.Count(body, []byte(`"cache_control":{"type":"ephemeral"}`))).To(Equal(3))
		var top struct {
			System []map[string]json.RawMessage `json:"system"`
			Tools  []map[string]json.RawMessage `json:"tools"`
		}
		Expect(json.Unmarshal(body, &top)).To(Succeed())
		Expect(top.System[0]).To(HaveKey("cache_control"))
		Expect(top.Tools[len(top.Tools)-1]).To(HaveKey("cache_control"))
		Expect(top.Tools[0]).NotTo(HaveKey("cache_control"))
		msgs := messages(body)
		var last struct {
			Role    string                       `json:"role"`
			Content []map[string]json.RawMessage `json:"content"`
		}
		Expect(json.Unmarshal(msgs[len(msgs)-1], &last)).To(Succeed())
		Expect(last.Role).To(Equal("user"))
		Expect(last.Content[len(last.Content)-1]).To(HaveKey("cache_control"))
		Expect(string(last.Content[len(last.Content)-1]["type"])).To(Equal(`"tool_result"`))
	})

	It("places a fourth breakpoint on the last of the tools every mode shares, so a mode switch finds them cached", func() {
		req := reqs[1]
		Expect(len(req.Tools)).To(BeNumerically(">=", 2))
		req.SharedTools = 1
		body := build(req)
		Expect(bytes.Count(body, []byte(`"cache_control":{"type":"ephemeral"}`))).To(Equal(4))
		var top struct {
			Tools []map[string]json.RawMessage `json:"tools"`
		}
		Expect(json.Unmarshal(body, &top)).To(Succeed())
		Expect(top.Tools[0]).To(HaveKey("cache_control"))
		Expect(top.Tools[len(top.Tools)-1]).To(HaveKey("cache_control"))

		req.SharedTools = len(req.Tools)
		Expect(bytes.Count(build(req), []byte(`"cache_control":{"type":"ephemeral"}`))).To(Equal(3), "all tools shared: the last tool's breakpoint serves")
	})

	It("merges consecutive tool results into one user turn so roles alternate", func() {
		var roles []string
		for _, m := range messages(build(reqs[1])) {
			var v struct{ Role string }
			Expect(json.Unmarshal(m, &v)).To(Succeed())
			roles = append(roles, v.Role)
		}
		Expect(roles).To(Equal([]string{"user", "assistant", "user"}))
	})

	It("replays signed thinking only to Anthropic, never from another protocol", func() {
		native := build(reqs[1])
		Expect(string(native)).To(ContainSubstring(`{"type":"thinking","thinking":"The panic is probably a nil map.","signature":"sig-1"}`))
		foreign := providertest.Conversation(llm.ProviderOpenAIResponses)[1]
		Expect(string(build(foreign))).NotTo(ContainSubstring(`"type":"thinking"`))
	})

	It("re-sends the recorded tool input compactly, as the SDK did in the next turn", func() {
		events, err := providertest.DecodeAll(&anthropic.Decoder{}, fixture("anthropic-tool-use-recorded.sse"))
		Expect(err).NotTo(HaveOccurred())
		call := providertest.Summarize(events).Calls[0]
		req := llm.Request{Model: "claude-3-7-sonnet-latest", Messages: []llm.Message{
			{Role: llm.RoleUser, Parts: []llm.Part{{Kind: llm.PartText, Text: "Weather in SF in fahrenheit?"}}},
			{Role: llm.RoleAssistant, Assistant: &llm.Assistant{Text: "I'll get the current weather in San Francisco for you in Fahrenheit.",
				Calls: []llm.ToolCall{{CallID: call.CallID, Name: call.Name, Arguments: []byte(call.Arguments)}}}},
		}}
		Expect(string(build(req))).To(ContainSubstring(`"input":{"city":"San Francisco","units":"fahrenheit"}`))
		Expect(string(fixture("anthropic-text-after-tool-result-recorded.request.json"))).To(
			ContainSubstring(`"input":{"city":"San Francisco","units":"fahrenheit"}`))
	})

	It("asks for adaptive summarized thinking and the effort, and defaults max_tokens", func() {
		req := llm.Request{Model: "claude", Reasoning: llm.Reasoning{Enabled: true, Effort: "xhigh"}}
		var top map[string]json.RawMessage
		Expect(json.Unmarshal(build(req), &top)).To(Succeed())
		Expect(string(top["thinking"])).To(Equal(`{"type":"adaptive","display":"summarized"}`))
		Expect(string(top["output_config"])).To(Equal(`{"effort":"xhigh"}`))
		Expect(string(top["max_tokens"])).To(Equal("65000"))
		Expect(top).NotTo(HaveKey("system"))
	})

	It("asks for fast mode with speed fast and its beta header, keeping the betas a model's custom headers name", func() {
		var top map[string]json.RawMessage
		Expect(json.Unmarshal(build(llm.Request{Model: "claude-opus-5-5", ServiceTier: llm.ServiceTierFast}), &top)).To(Succeed())
		Expect(string(top["speed"])).To(Equal(`"fast"`))
		var standard map[string]json.RawMessage
		Expect(json.Unmarshal(build(llm.Request{Model: "claude-opus-5-5"}), &standard)).To(Succeed())
		Expect(standard).NotTo(HaveKey("speed"))

		h := http.Header{"Anthropic-Beta": {"context-management-2025-06-27"}}
		anthropic.Messages().Headers(h, llm.Request{ServiceTier: llm.ServiceTierFast})
		Expect(h.Get("anthropic-beta")).To(Equal("context-management-2025-06-27," + anthropic.FastModeBeta))
		anthropic.Messages().Headers(h, llm.Request{ServiceTier: llm.ServiceTierFast})
		Expect(h.Get("anthropic-beta")).To(Equal("context-management-2025-06-27,"+anthropic.FastModeBeta), "added once")
		none := http.Header{}
		anthropic.Messages().Headers(none, llm.Request{})
		Expect(none).To(BeEmpty())
	})

	It("lets extra parameters replace max_tokens in place and appends the rest", func() {
		extras, err := wire.ParseExtras([]byte(`{"max_tokens":1024,"top_k":5}`), anthropic.Messages().Reserved)
		Expect(err).NotTo(HaveOccurred())
		body, err := anthropic.AppendRequest(nil, llm.Request{Model: "claude"}, anthropic.Options{Extras: extras})
		Expect(err).NotTo(HaveOccurred())
		Expect(string(body)).To(Equal(`{"model":"claude","max_tokens":1024,"messages":[],"stream":true,"top_k":5}`))
	})
})

var _ = Describe("AppendRequest for DeepSeek's Anthropic-format gateway", func() {
	It("gives every assistant turn a thinking block, reusing the nearest signed one", func() {
		req := llm.Request{Model: "deepseek-v4", Reasoning: llm.Reasoning{Enabled: true}, Messages: []llm.Message{
			{Role: llm.RoleUser, Parts: []llm.Part{{Kind: llm.PartText, Text: "a"}}},
			{Role: llm.RoleAssistant, Assistant: &llm.Assistant{Text: "from chat", Replay: &llm.ReplayState{
				Kind: llm.ProviderOpenAIChat, Value: []byte(`{"reasoning_content":"x"}`)}}},
			{Role: llm.RoleUser, Parts: []llm.Part{{Kind: llm.PartText, Text: "b"}}},
			{Role: llm.RoleAssistant, Assistant: &llm.Assistant{Text: "signed", Replay: &llm.ReplayState{
				Kind: llm.ProviderAnthropic, Value: []byte(`{"blocks":[{"type":"thinking","thinking":"t","signature":"s1"}]}`)}}},
			{Role: llm.RoleUser, Parts: []llm.Part{{Kind: llm.PartText, Text: "c"}}},
			{Role: llm.RoleAssistant, Assistant: &llm.Assistant{Text: "plain"}},
		}}
		body, err := anthropic.AppendRequest(nil, req, anthropic.Options{ThinkingCarrier: true})
		Expect(err).NotTo(HaveOccurred())
		msgs := messages(body)
		Expect(string(msgs[1])).To(HavePrefix(`{"role":"assistant","content":[{"type":"thinking","thinking":"","signature":""},`))
		Expect(string(msgs[3])).To(HavePrefix(`{"role":"assistant","content":[{"type":"thinking","thinking":"t","signature":"s1"},`))
		Expect(string(msgs[5])).To(HavePrefix(`{"role":"assistant","content":[{"type":"thinking","thinking":"t","signature":"s1"},`))
	})

	It("adds nothing when the carrier is off", func() {
		req := llm.Request{Model: "claude", Reasoning: llm.Reasoning{Enabled: true}, Messages: []llm.Message{
			{Role: llm.RoleAssistant, Assistant: &llm.Assistant{Text: "plain"}}}}
		Expect(string(build(req))).NotTo(ContainSubstring(`"type":"thinking"`))
	})
})
