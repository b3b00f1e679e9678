package agentspec_test

import (
	"bytes"
	"io"
	"net/http"

	. "github.com/onsi/ginkgo/v2"
	. "github.com/onsi/gomega"
	"google.golang.org/protobuf/proto"

	"keygate/adapters/provider/providertest"
	"keygate/domain/llm"
	agentv1 "keygate/gen/cursor/agent/v1"
	aiserverv1 "keygate/gen/cursor/aiserver/v1"
	"keygate/gen/cursor/aiserver/v1/aiserverv1connect"
)

// availableModels asks the picker's model list through the proxy, as the
// client does (Connect unary, binary proto).
func (k *keygate) availableModels() map[string]*aiserverv1.AvailableModelsResponse_AvailableModel {
	GinkgoHelper()
	body, err := proto.Marshal(&aiserverv1.AvailableModelsRequest{UseModelParameters: proto.Bool(true)})
	Expect(err).NotTo(HaveOccurred())
	req, err := http.NewRequest(http.MethodPost, cursorAPI+aiserverv1connect.AiServiceAvailableModelsProcedure, bytes.NewReader(body))
	Expect(err).NotTo(HaveOccurred())
	req.Header.Set("Content-Type", "application/proto")
	req.Header.Set("Connect-Protocol-Version", "1")
	resp, err := k.cursorHTTP().Do(req)
	Expect(err).NotTo(HaveOccurred())
	defer resp.Body.Close()
	raw, err := io.ReadAll(resp.Body)
	Expect(err).NotTo(HaveOccurred())
	Expect(resp.StatusCode).To(Equal(http.StatusOK), string(raw))
	var out aiserverv1.AvailableModelsResponse
	Expect(proto.Unmarshal(raw, &out)).To(Succeed())
	models := map[string]*aiserverv1.AvailableModelsResponse_AvailableModel{}
	for _, m := range out.GetModels() {
		models[m.GetName()] = m
	}
	return models
}

// values lists a definition's values by parameter id.
func values(m *aiserverv1.AvailableModelsResponse_AvailableModel) map[string][]string {
	out := map[string][]string{}
	for _, d := range m.GetParameterDefinitions() {
		for _, v := range d.GetParameterType().GetEnumParameter().GetValues() {
			out[d.GetId()] = append(out[d.GetId()], v.GetValue())
		}
		for _, v := range d.GetParameterType().GetBooleanParameter().GetValues() {
			out[d.GetId()] = append(out[d.GetId()], v.GetValue())
		}
	}
	return out
}

// contextRing is the window the client's context ring shows: the last
// checkpoint's token_details.max_tokens.
func (t turn) contextRing() uint32 {
	var max uint32
	for _, m := range t.st.Content() {
		if cp := m.GetConversationCheckpointUpdate(); cp != nil {
			max = cp.GetTokenDetails().GetMaxTokens()
		}
	}
	return max
}

// withParams sets the picker values a run request carries.
func withParams(m *agentv1.AgentClientMessage, maxMode bool, kv ...string) *agentv1.AgentClientMessage {
	rm := m.GetRunRequest().GetRequestedModel()
	rm.MaxMode = maxMode
	for i := 0; i+1 < len(kv); i += 2 {
		rm.Parameters = append(rm.Parameters, &agentv1.RequestedModel_ModelParameterValue{Id: kv[i], Value: kv[i+1]})
	}
	return m
}

var _ = Describe("Cursor's model picker on Keygate's models", Ordered, func() {
	var k *keygate
	BeforeAll(func() { k = startKeygate(newWeb(), nil) })

	It("lists each model with the parameters its provider supports and its context windows (no fast tier off the vendor's own API)", func() {
		models := k.availableModels()
		gpt, claude := models[k.models[llm.ProviderOpenAIChat]], models[k.models[llm.ProviderAnthropic]]
		Expect(values(gpt)).To(Equal(map[string][]string{
			"reasoning": {"default", "none", "low", "medium", "high", "xhigh"}, "context": {"272k", "1.05m"}}))
		Expect(gpt.GetContextTokenLimit()).To(BeEquivalentTo(272_000))
		Expect(gpt.GetContextTokenLimitForMaxMode()).To(BeEquivalentTo(1_050_000))
		Expect(gpt.GetSupportsThinking()).To(BeTrue())
		Expect(gpt.GetVariants()).NotTo(BeEmpty())
		Expect(values(claude)).To(Equal(map[string][]string{
			"reasoning": {"default", "low", "medium", "high", "xhigh", "max"}, "context": {"200k", "1m"}}))
	})

	type protocolCase struct {
		kind   llm.ProviderKind
		effort string // how the request says "high"
		long   string // the long context's picker value
		window uint32 // its size
	}
	cases := map[llm.ProviderKind]protocolCase{
		llm.ProviderOpenAIChat:      {llm.ProviderOpenAIChat, `"reasoning_effort":"high"`, "1.05m", 1_050_000},
		llm.ProviderOpenAIResponses: {llm.ProviderOpenAIResponses, `"reasoning":{"effort":"high","summary":"auto"}`, "1.05m", 1_050_000},
		llm.ProviderAnthropic:       {llm.ProviderAnthropic, `"output_config":{"effort":"high"}`, "1m", 1_000_000},
	}

	DescribeTable("the chosen reasoning effort reaches the provider request in its protocol's own field, the chosen context becomes the context ring",
		func(kind llm.ProviderKind) {
			c := cases[kind]
			t := k.turn(kind, withParams(userMessage("conv-pick-"+string(kind), "Think hard", nil), false, "reasoning", "high", "context", c.long), nil,
				providertest.Turn{ID: "r1", Text: []string{"Done thinking."}})
			Expect(string(t.requests[0].Body)).To(ContainSubstring(c.effort))
			Expect(t.contextRing()).To(Equal(c.window))
		},
		perProtocol("picks"),
	)

	DescribeTable("without a choice, the provider's default effort and the family's default window, so automatic compaction works unconfigured",
		func(kind llm.ProviderKind) {
			t := k.turn(kind, userMessage("conv-default-"+string(kind), "hi", nil), nil, providertest.Turn{ID: "r1", Text: []string{"hello"}})
			Expect(string(t.requests[0].Body)).NotTo(Or(ContainSubstring("reasoning_effort"), ContainSubstring(`"effort"`)))
			want := uint32(272_000)
			if kind == llm.ProviderAnthropic {
				want = 200_000
			}
			Expect(t.contextRing()).To(Equal(want))
		},
		perProtocol("defaults"),
	)

	It("Max mode picks the long context", func() {
		t := k.turn(llm.ProviderAnthropic, withParams(userMessage("conv-max", "hi", nil), true), nil, providertest.Turn{ID: "r1", Text: []string{"hello"}})
		Expect(t.contextRing()).To(BeEquivalentTo(1_000_000))
	})
})
