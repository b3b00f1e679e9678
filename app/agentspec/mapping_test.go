package agentspec_test

import (
	. "github.com/onsi/ginkgo/v2"
	. "github.com/onsi/gomega"

	"keygate/adapters/provider/providertest"
	"keygate/domain/llm"
	controlv1 "keygate/gen/keygate/control/v1"
)

var _ = Describe("Cursor's own model ids mapped onto a Keygate model, through the proxy", func() {
	It("runs a turn the client pins to a mapped built-in model on Keygate, the call record naming both", func() {
		k := startKeygate(newWeb(), nil)
		target := k.models[llm.ProviderOpenAIChat]
		var set controlv1.SetModelMappingResponse
		k.control("/keygate.control.v1.ModelMappingService/SetModelMapping",
			&controlv1.SetModelMappingRequest{CursorModel: "gpt-5", Target: target}, &set)
		Expect(set.GetMapping().GetTarget()).To(Equal(target))
		var list controlv1.ListModelMappingsResponse
		k.control("/keygate.control.v1.ModelMappingService/ListModelMappings", &controlv1.ListModelMappingsRequest{}, &list)
		Expect(list.GetMappings()).To(HaveExactElements(HaveField("CursorModel", "gpt-5")))

		m := userMessage("conv-mapped-1", "Which model are you?", nil)
		m.GetRunRequest().RequestedModel.ModelId = "gpt-5"
		t := k.turn(llm.ProviderOpenAIChat, m, nil, providertest.Turn{Text: []string{"Keygate's."}})
		Expect(t.requests).To(HaveLen(1), "the turn ran on the mapped Keygate model's provider")
		Expect(string(t.requests[0].Body)).To(ContainSubstring(`"model":"` + upstreamModel[llm.ProviderOpenAIChat] + `"`))
		Expect(t.st.EndError()).To(BeNil())

		var calls controlv1.ListCallsResponse
		k.control("/keygate.control.v1.CallService/ListCalls", &controlv1.ListCallsRequest{}, &calls)
		Expect(calls.GetCalls()).To(HaveLen(1))
		Expect(calls.GetCalls()[0].GetRoute().GetRouteId()).To(Equal("gpt-5"), "the mapping the client asked for")
		Expect(calls.GetCalls()[0].GetRoute().GetTargetModelId()).To(Equal(target), "the Keygate model it ran on")

		By("once the mapping is deleted, the id is Cursor's again")
		k.control("/keygate.control.v1.ModelMappingService/DeleteModelMapping", &controlv1.DeleteModelMappingRequest{CursorModel: "gpt-5"}, &controlv1.DeleteModelMappingResponse{})
		k.control("/keygate.control.v1.ModelMappingService/ListModelMappings", &controlv1.ListModelMappingsRequest{}, &list)
		Expect(list.GetMappings()).To(BeEmpty())
	})
})
