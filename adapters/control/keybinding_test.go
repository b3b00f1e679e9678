package control_test

import (
	"context"
	"net/http"

	"connectrpc.com/connect"
	. "github.com/onsi/ginkgo/v2"
	. "github.com/onsi/gomega"

	"keygate/adapters/provider/providertest"
	appcontrol "keygate/app/control"
	"keygate/domain/access"
	"keygate/domain/identity"
	"keygate/domain/llm"
	controlv1 "keygate/gen/keygate/control/v1"
	"keygate/ports"
)

var _ = Describe("Keys bound to their endpoint", func() {
	const key = "sk-bound-0123456789abcdef"
	var (
		a      *api
		ctx    context.Context
		m      *controlv1.Model
		origin string // of a.upstream
		other  string // of a.elsewhere
		who    access.Principal
	)
	admin := access.Principal{Identity: identity.Identity{UserID: "root"}, Role: access.Admin}
	member := access.Principal{Identity: identity.Identity{UserID: "ada"}, Role: access.Member}
	// signIn signs every request in as who is at that moment.
	signIn := func(next http.Handler) http.Handler {
		return http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
			next.ServeHTTP(w, r.WithContext(access.NewContext(r.Context(), who)))
		})
	}
	listReply := func() providertest.Reply {
		return providertest.Reply{Header: http.Header{"Content-Type": {"application/json"}},
			Steps: []providertest.Step{{Data: []byte(`{"data":[{"id":"gpt-a"}]}`)}}}
	}
	okTurn := func() providertest.Reply {
		return providertest.Stream(providertest.ChatSSE(providertest.Turn{Text: providertest.Words("1 2 3")}))
	}
	// moved is the model's settings with the base URL on another origin.
	moved := func() *controlv1.ModelSettings {
		s := a.chatSettings("gpt-a")
		s.BaseUrl = a.elsewhere.URL + "/v1"
		return s
	}
	update := func(s *controlv1.ModelSettings, apiKey string) (*controlv1.Model, error) {
		resp, err := a.models.UpdateModel(ctx, connect.NewRequest(&controlv1.UpdateModelRequest{Id: m.GetId(), Settings: s, ApiKey: apiKey}))
		if err != nil {
			return nil, err
		}
		return resp.Msg.GetModel(), nil
	}
	discover := func(baseURL, fromModel string) error {
		_, err := a.models.DiscoverModels(ctx, connect.NewRequest(&controlv1.DiscoverModelsRequest{
			ProviderKind: controlv1.ProviderKind_PROVIDER_KIND_OPENAI_CHAT, BaseUrl: baseURL, KeyFromModelId: fromModel}))
		return err
	}
	// testErr runs a connection test and returns the stream's error.
	testErr := func(id string) error {
		stream, err := a.models.TestModel(ctx, connect.NewRequest(&controlv1.TestModelRequest{Id: id}))
		Expect(err).NotTo(HaveOccurred())
		for stream.Receive() {
		}
		return stream.Err()
	}
	// tamper points a model's provider elsewhere behind Keygate's back.
	tamper := func(id, baseURL string) {
		cfg, err := a.store.ModelConfig(ctx, id)
		Expect(err).NotTo(HaveOccurred())
		p, err := a.store.Provider(ctx, cfg.ProviderID)
		Expect(err).NotTo(HaveOccurred())
		p.BaseURL = baseURL
		Expect(a.store.PutProvider(ctx, p)).To(Succeed())
	}

	BeforeEach(func() {
		who = admin
		a, ctx = newAPIWith(signIn), context.Background()
		m = a.create("gpt-a", key)
		var err error
		origin, err = appcontrol.Origin(a.upstream.URL)
		Expect(err).NotTo(HaveOccurred())
		other, err = appcontrol.Origin(a.elsewhere.URL)
		Expect(err).NotTo(HaveOccurred())
		Expect(origin).NotTo(Equal(other))
	})

	Describe("as an administrator", func() {
		It("refuses to move a model to another origin without its key, names both origins, and changes nothing", func() {
			_, err := update(moved(), "")
			Expect(err).To(HaveConnectCode(connect.CodeInvalidArgument))
			Expect(err.Error()).To(ContainSubstring("enter the API key again: it was saved for " + origin + " and would be sent to " + other))
			got, err := a.store.ModelConfig(ctx, m.GetId())
			Expect(err).NotTo(HaveOccurred())
			Expect(got.BaseURL).To(Equal(a.upstream.URL + "/v1"))

			a.upstream.Enqueue(okTurn())
			res := a.test(m.GetId())
			Expect(res[len(res)-1].GetResult().GetOk()).To(BeTrue(), "the model still works where it was")
			Expect(a.elsewhere.Requests()).To(BeEmpty())
		})

		It("moves a model to another origin when the key is entered again, and sends that key there", func() {
			_, err := update(moved(), "sk-other-0123456789abcdef")
			Expect(err).NotTo(HaveOccurred())
			a.elsewhere.Enqueue(okTurn())
			res := a.test(m.GetId())
			Expect(res[len(res)-1].GetResult().GetOk()).To(BeTrue(), res[len(res)-1].GetResult().GetError())
			Expect(a.elsewhere.Requests()[0].Header.Get("Authorization")).To(Equal("Bearer sk-other-0123456789abcdef"))
		})

		It("keeps the key through an edit on the same origin with another path", func() {
			s := a.chatSettings("gpt-a")
			s.BaseUrl = a.upstream.URL + "/"
			s.DisplayName = "Renamed"
			_, err := update(s, "")
			Expect(err).NotTo(HaveOccurred())
			a.upstream.Enqueue(okTurn())
			a.test(m.GetId())
			Expect(a.upstream.Requests()[0].Header.Get("Authorization")).To(Equal("Bearer " + key))
		})

		It("keeps the binding in a duplicate", func() {
			dup, err := a.models.DuplicateModel(ctx, connect.NewRequest(&controlv1.DuplicateModelRequest{Id: m.GetId()}))
			Expect(err).NotTo(HaveOccurred())
			_, err = a.models.UpdateModel(ctx, connect.NewRequest(&controlv1.UpdateModelRequest{Id: dup.Msg.GetModel().GetId(), Settings: moved()}))
			Expect(err).To(HaveConnectCode(connect.CodeInvalidArgument))
			Expect(err.Error()).To(ContainSubstring("saved for " + origin))
			Expect(a.elsewhere.Requests()).To(BeEmpty())
		})

		It("refuses a key whose row was pointed elsewhere behind Keygate's back, before sending anything", func() {
			tamper(m.GetId(), a.elsewhere.URL+"/v1")
			err := testErr(m.GetId())
			Expect(err).To(HaveConnectCode(connect.CodeFailedPrecondition))
			Expect(err.Error()).To(ContainSubstring("saved for " + origin + " and would be sent to " + other))
			_, _, err = a.endpoints.Endpoint(ctx, m.GetId())
			var bound *appcontrol.KeyOriginError
			Expect(err).To(BeAssignableToTypeOf(bound))
			Expect(a.elsewhere.Requests()).To(BeEmpty())
		})

		It("discovers with a stored key only at the origin it was saved for", func() {
			err := discover(a.elsewhere.URL+"/v1", m.GetId())
			Expect(err).To(HaveConnectCode(connect.CodeInvalidArgument))
			Expect(err.Error()).To(ContainSubstring("saved for " + origin + " and is not sent to " + other))
			Expect(a.elsewhere.Requests()).To(BeEmpty())

			a.upstream.Enqueue(listReply())
			Expect(discover(a.upstream.URL+"/v1", m.GetId())).To(Succeed())
			Expect(a.upstream.Requests()[0].Header.Get("Authorization")).To(Equal("Bearer " + key))
		})

		It("audits every use of a stored key, with the key masked", func() {
			a.upstream.Enqueue(listReply(), okTurn())
			Expect(discover(a.upstream.URL+"/v1", m.GetId())).To(Succeed())
			a.test(m.GetId())
			Expect(a.audit.lines()).To(Equal([]string{"root model.test " + m.GetId(), "root model.discover " + m.GetId()}))
			for _, e := range a.audit.entries {
				Expect(string(e.After)).To(ContainSubstring(`"keyHint":"sk-…cdef"`))
				Expect(string(e.After)).To(ContainSubstring(`"url":"` + a.upstream.URL))
				Expect(string(e.After)).NotTo(ContainSubstring("0123456789"))
				Expect(e.Role).To(Equal("admin"))
			}
		})

		It("does not audit a discovery with a key typed in, which uses no stored key", func() {
			a.upstream.Enqueue(listReply())
			_, err := a.models.DiscoverModels(ctx, connect.NewRequest(&controlv1.DiscoverModelsRequest{
				ProviderKind: controlv1.ProviderKind_PROVIDER_KIND_OPENAI_CHAT, BaseUrl: a.upstream.URL + "/v1", ApiKey: "sk-typed-0123456789"}))
			Expect(err).NotTo(HaveOccurred())
			Expect(a.audit.lines()).To(BeEmpty())
		})

		It("sees which custom headers a model sends and a hint of each, never a value, nor does a member see the hint", func() {
			who = admin
			s := a.chatSettings("gpt-a")
			s.CustomHeaders = map[string]string{"Cf-Access-Client-Secret": "gw-secret-4711"}
			_, err := update(s, "")
			Expect(err).NotTo(HaveOccurred())
			list := func() *controlv1.Model {
				resp, err := a.models.ListModels(ctx, connect.NewRequest(&controlv1.ListModelsRequest{}))
				Expect(err).NotTo(HaveOccurred())
				return resp.Msg.GetModels()[0]
			}
			Expect(list().GetSettings().GetCustomHeaders()).To(Equal(map[string]string{"Cf-Access-Client-Secret": ""}))
			Expect(list().GetCustomHeaderHints()).To(ConsistOf(HaveField("Hint", "gw-…4711")))
			who = member
			Expect(list().GetSettings().GetCustomHeaders()).To(Equal(map[string]string{"Cf-Access-Client-Secret": ""}))
			Expect(list().GetCustomHeaderHints()).To(ConsistOf(And(HaveField("Name", "Cf-Access-Client-Secret"), HaveField("Hint", ""))))
		})
	})

	Describe("as a member", func() {
		It("cannot move, test or discover with a stored key, and nothing is sent or audited", func() {
			who = member
			_, err := update(moved(), "")
			Expect(err).To(HaveConnectCode(connect.CodePermissionDenied))
			Expect(testErr(m.GetId())).To(HaveConnectCode(connect.CodePermissionDenied))
			Expect(discover(a.elsewhere.URL+"/v1", m.GetId())).To(HaveConnectCode(connect.CodePermissionDenied))
			Expect(discover(a.upstream.URL+"/v1", m.GetId())).To(HaveConnectCode(connect.CodePermissionDenied))
			Expect(a.upstream.Requests()).To(BeEmpty())
			Expect(a.elsewhere.Requests()).To(BeEmpty())
			Expect(a.audit.lines()).To(BeEmpty())
		})
	})

	Describe("keys stored before keys were bound", func() {
		var legacy string
		BeforeEach(func() {
			sealed, err := a.box.Seal([]byte("sk-legacy-0123456789abcdef"))
			Expect(err).NotTo(HaveOccurred())
			legacy = "legacy"
			Expect(a.store.PutProvider(ctx, ports.Provider{ID: "p-legacy", Name: "Old", Kind: llm.ProviderOpenAIChat,
				BaseURL: a.upstream.URL + "/v1", Keys: []ports.ProviderKey{{ID: "k-legacy", Sealed: sealed, Weight: 1, Enabled: true}}})).To(Succeed())
			Expect(a.store.PutModelConfig(ctx, ports.ModelConfig{ID: legacy, DisplayName: "Old", ProviderID: "p-legacy",
				ModelID: "gpt-a", SortOrder: 9})).To(Succeed())
		})

		It("still work, and count as bound to the origin their model names", func() {
			a.upstream.Enqueue(okTurn())
			res := a.test(legacy)
			Expect(res[len(res)-1].GetResult().GetOk()).To(BeTrue(), res[len(res)-1].GetResult().GetError())
			Expect(a.upstream.Requests()[0].Header.Get("Authorization")).To(Equal("Bearer sk-legacy-0123456789abcdef"))

			_, err := a.models.UpdateModel(ctx, connect.NewRequest(&controlv1.UpdateModelRequest{Id: legacy, Settings: moved()}))
			Expect(err).To(HaveConnectCode(connect.CodeInvalidArgument))
			Expect(err.Error()).To(ContainSubstring("saved for " + origin))
		})

		It("are bound at start, so that a row pointed elsewhere afterwards is refused", func() {
			n, err := a.binding.Bind(ctx)
			Expect(err).NotTo(HaveOccurred())
			Expect(n).To(Equal(1), "only the legacy key needed binding")
			again, err := a.binding.Bind(ctx)
			Expect(err).NotTo(HaveOccurred())
			Expect(again).To(BeZero())

			tamper(legacy, a.elsewhere.URL+"/v1")
			Expect(testErr(legacy)).To(HaveConnectCode(connect.CodeFailedPrecondition))
			Expect(a.elsewhere.Requests()).To(BeEmpty())
		})
	})
})
