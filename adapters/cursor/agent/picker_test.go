package agent_test

import (
	"context"
	"net/http"

	. "github.com/onsi/ginkgo/v2"
	. "github.com/onsi/gomega"

	"keygate/adapters/cursor"
	"keygate/adapters/cursor/agent"
	"keygate/adapters/cursor/cursortest"
	"keygate/adapters/provider"
	"keygate/adapters/provider/anthropic"
	"keygate/adapters/provider/providertest"
	"keygate/domain/llm"
	agentv1 "keygate/gen/cursor/agent/v1"
	"keygate/ports"
)

// vendorModels resolves "kg-vendor" to a model configured on its vendor's
// own API (gpt-5.5 on api.openai.com, claude-opus-5-5 on api.anthropic.com,
// where the fast tier exists), while the calls go to the fake provider.
type vendorModels struct {
	url  string
	kind llm.ProviderKind
}

func (m vendorModels) Endpoint(_ context.Context, id string) (ports.Endpoint, ports.ModelConfig, error) {
	if id != "kg-vendor" {
		return ports.Endpoint{}, ports.ModelConfig{}, ports.ErrNotFound
	}
	u, err := provider.RequestURL(m.url, false, m.kind)
	if err != nil {
		return ports.Endpoint{}, ports.ModelConfig{}, err
	}
	cfg := ports.ModelConfig{ID: id, ModelID: "gpt-5.5", BaseURL: "https://api.openai.com/v1", DisplayName: "Vendor", Enabled: true, ProviderKind: m.kind}
	if m.kind == llm.ProviderAnthropic {
		cfg.ModelID, cfg.BaseURL = "claude-opus-5-5", "https://api.anthropic.com"
	}
	return ports.Endpoint{Kind: m.kind, URL: u, APIKey: "sk-test"}, cfg, nil
}

// The picker parameters on every provider protocol: what the user chose in
// Cursor's model picker reaches the provider request in that protocol's
// own words, and the chosen context size becomes the window the client's
// context ring shows.
var _ = Describe("Handler applying the model picker's parameters", func() {
	DescribeTable("sends the chosen reasoning effort and fast tier in the provider's own fields, and compacts at the chosen context",
		func(kind llm.ProviderKind, window uint32, body []string, header func(http.Header)) {
			h := newHarness(kind)
			handler, err := agent.New(agent.Options{Engine: h.engine, Conversations: h.stores.Conversations, Models: vendorModels{url: h.provider.URL, kind: kind}})
			Expect(err).NotTo(HaveOccurred())
			env := cursortest.Serve(handler, cursor.Options{Transport: cursortest.FastTimings()})
			DeferCleanup(env.Close)
			h.reply(providertest.Turn{ID: "r1", Text: []string{"Thought hard."}})
			first := cursortest.RunRequest("conv-picker", "kg-vendor", "Think")
			first.GetRunRequest().RequestedModel.Parameters = []*agentv1.RequestedModel_ModelParameterValue{
				{Id: "reasoning", Value: "high"}, {Id: "fast", Value: "true"}, {Id: "context", Value: "1m"}, {Id: "context", Value: "1.05m"}}
			st := finished(open(env.Client("req-picker"), first))
			Expect(st.EndError()).To(BeNil())
			req := h.provider.Requests()[0]
			for _, b := range body {
				Expect(string(req.Body)).To(ContainSubstring(b))
			}
			header(req.Header)
			var max uint32
			for _, m := range st.Content() {
				if cp := m.GetConversationCheckpointUpdate(); cp != nil {
					max = cp.GetTokenDetails().GetMaxTokens()
				}
			}
			Expect(max).To(Equal(window))
		},
		Entry("OpenAI Chat: reasoning_effort and priority processing", llm.ProviderOpenAIChat, uint32(1_050_000),
			[]string{`"reasoning_effort":"high"`, `"service_tier":"priority"`}, func(http.Header) {}),
		Entry("OpenAI Responses: reasoning.effort and priority processing", llm.ProviderOpenAIResponses, uint32(1_050_000),
			[]string{`"reasoning":{"effort":"high","summary":"auto"}`, `"service_tier":"priority"`}, func(http.Header) {}),
		Entry("Anthropic: output_config.effort, adaptive thinking and fast mode with its beta header", llm.ProviderAnthropic, uint32(1_000_000),
			[]string{`"output_config":{"effort":"high"}`, `"thinking":{"type":"adaptive"`, `"speed":"fast"`}, func(h http.Header) {
				Expect(h.Get("anthropic-beta")).To(ContainSubstring(anthropic.FastModeBeta))
			}),
	)

	It("sends nothing the model does not offer, whatever a stale picker asks", func() {
		h := newHarness(llm.ProviderOpenAIChat)
		h.reply(providertest.Turn{ID: "r1", Text: []string{"ok"}})
		first := cursortest.RunRequest("conv-stale", "kg-model", "hi")
		first.GetRunRequest().RequestedModel.Parameters = []*agentv1.RequestedModel_ModelParameterValue{
			{Id: "reasoning", Value: "ultra"}, {Id: "fast", Value: "true"}}
		st := finished(open(h.env.Client("req-stale"), first))
		Expect(st.EndError()).To(BeNil())
		body := string(h.provider.Requests()[0].Body)
		Expect(body).NotTo(Or(ContainSubstring("reasoning_effort"), ContainSubstring("service_tier")))
	})
})
