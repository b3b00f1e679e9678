package threatspec_test

import (
	"net/http"
	"net/http/httptest"
	"strings"
	"sync/atomic"

	. "github.com/onsi/ginkgo/v2"
	. "github.com/onsi/gomega"
	"google.golang.org/protobuf/proto"

	"keygate/adapters/provider/providertest"
	controlv1 "keygate/gen/keygate/control/v1"
	"keygate/gen/keygate/control/v1/controlv1connect"
)

// attacker is a server that records every request it gets and what
// credentials came with it.
type attacker struct {
	*httptest.Server
	hits atomic.Int64
	seen atomic.Value // last request's headers, flattened
}

func newAttacker() *attacker {
	a := &attacker{}
	a.Server = httptest.NewServer(http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
		a.hits.Add(1)
		var b strings.Builder
		for k, vs := range r.Header {
			b.WriteString(k + ": " + strings.Join(vs, ",") + "\n")
		}
		a.seen.Store(b.String())
		w.Header().Set("Content-Type", "application/json")
		_, _ = w.Write([]byte(`{"data":[{"id":"stolen"}]}`))
	}))
	DeferCleanup(a.Close)
	return a
}

var _ = Describe("Threat 3: stored provider keys are sent somewhere else to be read", Ordered, func() {
	var (
		k    *stack
		evil *attacker
	)
	BeforeAll(func() {
		evil = newAttacker()
		k = startKeygate(allowEgress(evil.Listener.Addr().String()))
	})

	settingsAt := func(base string) *controlv1.ModelSettings {
		return &controlv1.ModelSettings{DisplayName: "Fake GPT", ProviderKind: controlv1.ProviderKind_PROVIDER_KIND_OPENAI_CHAT,
			BaseUrl: base, ModelId: "fake-gpt", SupportsTools: true}
	}

	It("refuses a discovery that would take the stored key to another origin, and the other origin sees nothing", func() {
		status, raw := k.call(root, controlv1connect.ModelServiceDiscoverModelsProcedure, &controlv1.DiscoverModelsRequest{
			ProviderKind: controlv1.ProviderKind_PROVIDER_KIND_OPENAI_CHAT, BaseUrl: evil.URL + "/v1", KeyFromModelId: k.modelID}, nil)
		Expect(status).To(Equal(http.StatusBadRequest), raw)
		Expect(raw).To(ContainSubstring("invalid_argument"))
		Expect(raw).NotTo(ContainSubstring(companyKey))
		Expect(evil.hits.Load()).To(BeZero())
	})

	It("refuses to point a model with a stored key at another origin unless the key is entered again", func(ctx SpecContext) {
		status, raw := k.call(root, controlv1connect.ModelServiceUpdateModelProcedure, &controlv1.UpdateModelRequest{
			Id: k.modelID, Settings: settingsAt(evil.URL)}, nil)
		Expect(status).To(Equal(http.StatusBadRequest), raw)
		Expect(raw).To(ContainSubstring("enter the API key again"))

		By("so the next connection test still goes to the provider the key was saved for")
		k.provider.Enqueue(providertest.Stream(providertest.ChatSSE(providertest.Turn{ID: "t", Text: providertest.Words("1 2 3")})))
		res, err := k.testModel(ctx, root, k.modelID)
		Expect(err).NotTo(HaveOccurred())
		Expect(res.GetOk()).To(BeTrue(), res.GetError())
		Expect(evil.hits.Load()).To(BeZero())
		Expect(k.provider.Requests()).NotTo(BeEmpty())
		Expect(k.provider.Requests()[0].Header.Get("Authorization")).To(Equal("Bearer " + companyKey))
	})

	It("audits each administrator use of a stored key, with the key masked", func() {
		_, _ = k.call(root, controlv1connect.ModelServiceDiscoverModelsProcedure, &controlv1.DiscoverModelsRequest{
			ProviderKind: controlv1.ProviderKind_PROVIDER_KIND_OPENAI_CHAT, BaseUrl: k.provider.URL, KeyFromModelId: k.modelID}, nil)
		status, raw := k.do(root, http.MethodGet, "/auth/audit", "", nil)
		Expect(status).To(Equal(http.StatusOK), raw)
		Expect(raw).To(ContainSubstring(`"action":"model.discover"`))
		Expect(raw).To(ContainSubstring(`"action":"model.test"`))
		Expect(raw).NotTo(ContainSubstring(companyKey))
	})

	It("gives a member no way to use a stored key at all", func() {
		for p, req := range map[string]proto.Message{
			controlv1connect.ModelServiceDiscoverModelsProcedure: &controlv1.DiscoverModelsRequest{BaseUrl: evil.URL, KeyFromModelId: k.modelID},
			controlv1connect.ModelServiceTestModelProcedure:      &controlv1.TestModelRequest{Id: k.modelID},
			controlv1connect.ModelServiceUpdateModelProcedure:    &controlv1.UpdateModelRequest{Id: k.modelID, Settings: settingsAt(evil.URL)},
		} {
			status, raw := k.call(mallory, p, req, nil)
			Expect(status).To(Equal(http.StatusForbidden), "%s: %s", p, raw)
		}
		Expect(evil.hits.Load()).To(BeZero())
	})
})
