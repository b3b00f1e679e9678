package control_test

import (
	"context"
	"strings"

	"connectrpc.com/connect"
	. "github.com/onsi/ginkgo/v2"
	. "github.com/onsi/gomega"

	"keygate/adapters/provider"
	controlv1 "keygate/gen/keygate/control/v1"
)

var _ = Describe("Provider protocols in the control API", func() {
	var (
		a   *api
		ctx context.Context
	)
	BeforeEach(func() {
		a = newAPI()
		ctx = context.Background()
	})

	// protoKinds returns every ProviderKind value the API defines but
	// UNSPECIFIED.
	protoKinds := func() []controlv1.ProviderKind {
		var out []controlv1.ProviderKind
		for n := range controlv1.ProviderKind_name {
			if k := controlv1.ProviderKind(n); k != controlv1.ProviderKind_PROVIDER_KIND_UNSPECIFIED {
				out = append(out, k)
			}
		}
		return out
	}

	It("lists every registered protocol beside the models, in the registry's order, with the registry's labels", func() {
		list, err := a.models.ListModels(ctx, connect.NewRequest(&controlv1.ListModelsRequest{}))
		Expect(err).NotTo(HaveOccurred())
		got := list.Msg.GetProtocols()
		want := provider.Builtin().Protocols()
		Expect(got).To(HaveLen(len(want)))
		for i, p := range want {
			Expect(got[i].GetKind().String()).To(Equal("PROVIDER_KIND_" + strings.ToUpper(string(p.Kind))))
			Expect(got[i].GetName()).To(Equal(p.Name))
			Expect(got[i].GetTitle()).To(Equal(p.Title))
			Expect(got[i].GetFillIn()).To(Equal(p.FillIn), "%s", p.Kind)
		}
		Expect(got[0].GetKind()).To(Equal(controlv1.ProviderKind_PROVIDER_KIND_OPENAI_CHAT), "a new model starts on Chat Completions")
		Expect(got).To(ContainElement(And(HaveField("Kind", controlv1.ProviderKind_PROVIDER_KIND_MISTRAL_FIM),
			HaveField("Title", "Mistral FIM (Codestral)"), HaveField("FillIn", true))))
	})

	It("names every registered protocol with a ProviderKind value, and every value but UNSPECIFIED with a registered protocol", func() {
		list, err := a.models.ListModels(ctx, connect.NewRequest(&controlv1.ListModelsRequest{}))
		Expect(err).NotTo(HaveOccurred())
		var listed []controlv1.ProviderKind
		for _, p := range list.Msg.GetProtocols() {
			listed = append(listed, p.GetKind())
		}
		Expect(listed).To(ConsistOf(protoKinds()))
	})

	It("saves and reads back a model on every ProviderKind value, storing the registered kind", func() {
		for _, k := range protoKinds() {
			s := a.chatSettings("m-" + k.String())
			s.ProviderKind = k
			resp, err := a.models.CreateModel(ctx, connect.NewRequest(&controlv1.CreateModelRequest{Settings: s, ApiKey: "sk-x"}))
			Expect(err).NotTo(HaveOccurred(), "kind %s", k)
			Expect(resp.Msg.GetModel().GetSettings().GetProviderKind()).To(Equal(k))
			stored, err := a.store.ModelConfig(ctx, resp.Msg.GetModel().GetId())
			Expect(err).NotTo(HaveOccurred())
			_, err = provider.Builtin().Lookup(stored.ProviderKind)
			Expect(err).NotTo(HaveOccurred(), "stored kind %q", stored.ProviderKind)
			Expect(strings.ToUpper(string(stored.ProviderKind))).To(Equal(strings.TrimPrefix(k.String(), "PROVIDER_KIND_")))
		}
	})

	DescribeTable("refuses a protocol Keygate does not speak, naming those it does",
		func(k controlv1.ProviderKind) {
			s := a.chatSettings("gpt-a")
			s.ProviderKind = k
			_, err := a.models.CreateModel(ctx, connect.NewRequest(&controlv1.CreateModelRequest{Settings: s, ApiKey: "sk-x"}))
			Expect(err).To(HaveConnectCode(connect.CodeInvalidArgument))
			Expect(err.Error()).To(ContainSubstring("provider_kind"))
			Expect(err.Error()).To(ContainSubstring("choose OpenAI Chat, OpenAI Responses, Anthropic, Gemini, Bedrock Converse, Bedrock Anthropic, Vertex Anthropic, Vertex Gemini, OpenAI Completions or Mistral FIM"))
		},
		Entry("none chosen", controlv1.ProviderKind_PROVIDER_KIND_UNSPECIFIED),
		Entry("a value the API does not define", controlv1.ProviderKind(99)),
	)

	It("refuses a discovery without a protocol before anything is sent", func() {
		_, err := a.models.DiscoverModels(ctx, connect.NewRequest(&controlv1.DiscoverModelsRequest{
			BaseUrl: a.upstream.URL + "/v1", ApiKey: "sk-typed-0123456789"}))
		Expect(err).To(HaveConnectCode(connect.CodeInvalidArgument))
		Expect(err.Error()).To(ContainSubstring("provider_kind"))
		Expect(a.upstream.Requests()).To(BeEmpty())
	})
})
