package agentspec_test

import (
	"bytes"
	"encoding/json"
	"strings"

	. "github.com/onsi/ginkgo/v2"
	. "github.com/onsi/gomega"

	"keygate/adapters/provider/providertest"
	"keygate/domain/llm"
	controlv1 "keygate/gen/keygate/control/v1"
)

var _ = Describe("A Cursor turn on a Gemini model, added as a protocol like any other", func() {
	It("runs a tool round on Gemini's SSE, sends the thought signature back on its call, and records usage with cache reads", func() {
		k := startKeygate(newWeb(), nil)
		k.addModel(llm.ProviderGemini, "gemini-3-pro-preview")
		t := k.turn(llm.ProviderGemini, userMessage("conv-gemini-1", "What is in a.txt?", nil), nil,
			providertest.Turn{ID: "r1", Model: "gemini-3-pro-preview", Thinking: []string{"I should read ", "the file."}, Signature: "c2lnLXItMQ==",
				Calls: []providertest.Call{call("unused", "Read", `{"path":"a.txt"}`)}, Usage: providertest.Usage{Input: 900, Output: 40, Reasoning: 25}},
			providertest.Turn{ID: "r2", Model: "gemini-3-pro-preview", Text: []string{"There is ", "no a.txt."},
				Usage: providertest.Usage{Input: 60, CacheRead: 896, Output: 5}})

		Expect(t.requests).To(HaveLen(2))
		key := "sk-agentspec-" + string(llm.ProviderGemini)
		for _, r := range t.requests {
			Expect(r.Method).To(Equal("POST"))
			Expect(r.Path).To(Equal("/v1beta/models/gemini-3-pro-preview:streamGenerateContent"))
			Expect(r.Query).To(Equal("alt=sse"))
			Expect(r.Header.Get("X-Goog-Api-Key")).To(Equal(key))
			Expect(r.Header.Get("Authorization")).To(BeEmpty())
		}
		first, second := t.requests[0].Body, t.requests[1].Body
		Expect(bytes.HasPrefix(second, bytes.TrimSuffix(first, []byte("]}")))).To(BeTrue(),
			"the second cycle's body extends the first's byte for byte:\n%s\n%s", first, second)
		var body struct {
			Contents []struct {
				Role  string            `json:"role"`
				Parts []json.RawMessage `json:"parts"`
			} `json:"contents"`
		}
		Expect(json.Unmarshal(second, &body)).To(Succeed())
		n := len(body.Contents)
		Expect(body.Contents[n-2].Role).To(Equal("model"))
		Expect(string(body.Contents[n-2].Parts[0])).To(Equal(`{"functionCall":{"name":"Read","args":{"path":"a.txt"}},"thoughtSignature":"c2lnLXItMQ=="}`))
		Expect(body.Contents[n-1].Role).To(Equal("user"))
		Expect(string(body.Contents[n-1].Parts[0])).To(HavePrefix(`{"functionResponse":{"name":"Read","response":{`))
		Expect(string(second)).NotTo(ContainSubstring("fc_r1_0"), "Keygate's call id stays on Keygate's side")

		Expect(t.completed("fc_r1_0").GetReadToolCall()).NotTo(BeNil(), "Cursor saw the call under the minted id")
		Expect(strings.Join(t.st.Texts(), "")).To(ContainSubstring("There is no a.txt."))

		var calls controlv1.ListCallsResponse
		k.control("/keygate.control.v1.CallService/ListCalls", &controlv1.ListCallsRequest{}, &calls)
		byIndex := map[int32]*controlv1.Call{}
		for _, c := range calls.GetCalls() {
			if c.GetConversationId() != "" && c.GetModel().GetProviderKind() == providerKind(llm.ProviderGemini) {
				byIndex[c.GetProviderCallIndex()] = c
			}
		}
		Expect(byIndex).To(HaveLen(2))
		Expect(byIndex[0].GetModel().GetRequestUrl()).NotTo(ContainSubstring(key))
		Expect(byIndex[0].GetFinishReason()).To(Equal("tool_use"))
		Expect(byIndex[0].GetUsage().GetReasoningTokens()).To(BeEquivalentTo(25))
		u := byIndex[1].GetUsage()
		Expect([]int64{u.GetInputTokens(), u.GetCacheReadTokens(), u.GetOutputTokens()}).To(Equal([]int64{60, 896, 5}))
		Expect(byIndex[1].GetFinishReason()).To(Equal("stop"))
	})
})
