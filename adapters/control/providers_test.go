package control_test

import (
	"context"
	"errors"
	"net/http"
	"strings"
	"time"

	"connectrpc.com/connect"
	. "github.com/onsi/ginkgo/v2"
	. "github.com/onsi/gomega"
	"google.golang.org/protobuf/encoding/protojson"

	"keygate/adapters/provider/providertest"
	domainrouting "keygate/domain/routing"
	controlv1 "keygate/gen/keygate/control/v1"
)

var _ = Describe("Providers and their key pools", func() {
	const (
		first  = "sk-first-0123456789abcdef"
		second = "sk-second-0123456789abcdef"
	)
	var (
		a   *api
		ctx context.Context
		p   *controlv1.Provider
	)
	okTurn := func() providertest.Reply {
		return providertest.Stream(providertest.ChatSSE(providertest.Turn{Text: providertest.Words("1 2 3")}))
	}
	settings := func(base string) *controlv1.ProviderSettings {
		return &controlv1.ProviderSettings{ProviderKind: controlv1.ProviderKind_PROVIDER_KIND_OPENAI_CHAT, BaseUrl: base,
			Region: "eu-west", CustomHeaders: map[string]string{"X-Team": "core"}}
	}
	model := func(providerID string) *controlv1.Model {
		resp, err := a.models.CreateModel(ctx, connect.NewRequest(&controlv1.CreateModelRequest{Enabled: true,
			Settings: &controlv1.ModelSettings{DisplayName: "On the pool", ModelId: "gpt-a", ProviderId: providerID}}))
		Expect(err).NotTo(HaveOccurred())
		return resp.Msg.GetModel()
	}
	sentKey := func(i int) string { return a.upstream.Requests()[i].Header.Get("Authorization") }

	BeforeEach(func() {
		a, ctx = newAPI(), context.Background()
		resp, err := a.providers.CreateProvider(ctx, connect.NewRequest(&controlv1.CreateProviderRequest{
			Settings: settings(a.upstream.URL + "/v1"),
			Keys:     []*controlv1.NewProviderKey{{ApiKey: first}, {ApiKey: second, Weight: 3}}}))
		Expect(err).NotTo(HaveOccurred())
		p = resp.Msg.GetProvider()
	})

	It("shows a pool's keys masked, never the keys, and names the provider after its host", func() {
		list, err := a.providers.ListProviders(ctx, connect.NewRequest(&controlv1.ListProvidersRequest{}))
		Expect(err).NotTo(HaveOccurred())
		Expect(list.Msg.GetProviders()).To(HaveLen(1))
		got := list.Msg.GetProviders()[0]
		Expect(got.GetSettings().GetName()).To(Equal(strings.TrimPrefix(a.upstream.URL, "http://")))
		Expect(got.GetSettings().GetRegion()).To(Equal("eu-west"))
		Expect(got.GetKeys()).To(HaveLen(2))
		Expect(got.GetKeys()[0].GetApiKeyHint()).To(Equal("sk-…cdef"))
		Expect(got.GetKeys()[1].GetWeight()).To(Equal(int32(3)))
		raw, err := protojson.Marshal(list.Msg)
		Expect(err).NotTo(HaveOccurred())
		Expect(string(raw)).NotTo(ContainSubstring("0123456789"))
	})

	It("calls a model pointed at it with its first enabled key, and the next one once that is disabled", func() {
		m := model(p.GetId())
		Expect(m.GetSettings().GetBaseUrl()).To(Equal(a.upstream.URL+"/v1"), "the model reads its provider's connection")
		Expect(m.GetProviderName()).To(Equal(p.GetSettings().GetName()))
		Expect(m.GetApiKeyHint()).To(Equal("sk-…cdef"))
		a.upstream.Enqueue(okTurn(), okTurn())
		res := a.test(m.GetId())
		Expect(res[len(res)-1].GetResult().GetOk()).To(BeTrue(), res[len(res)-1].GetResult().GetError())
		Expect(sentKey(0)).To(Equal("Bearer " + first))
		Expect(a.upstream.Requests()[0].Header.Get("X-Team")).To(Equal("core"))

		_, err := a.providers.SetProviderKeyEnabled(ctx, connect.NewRequest(&controlv1.SetProviderKeyEnabledRequest{
			ProviderId: p.GetId(), KeyId: p.GetKeys()[0].GetId(), Enabled: false}))
		Expect(err).NotTo(HaveOccurred())
		a.test(m.GetId())
		Expect(sentKey(1)).To(Equal("Bearer " + second))
	})

	It("shows each key's shared health, and which keys Keygate itself took out of the pool", func() {
		bad, resting := p.GetKeys()[0].GetId(), p.GetKeys()[1].GetId()
		_, err := a.store.RecordFailure(ctx, domainrouting.KeySubject(resting), domainrouting.Failure{At: time.Now(),
			Message: "HTTP 429: Rate limit reached", CoolUntil: time.Now().Add(time.Hour)})
		Expect(err).NotTo(HaveOccurred())
		Expect(a.store.SetKeyEnabled(ctx, p.GetId(), bad, false, "disabled by Keygate: 3 authentication failures in a row")).To(Succeed())
		list, err := a.providers.ListProviders(ctx, connect.NewRequest(&controlv1.ListProvidersRequest{}))
		Expect(err).NotTo(HaveOccurred())
		keys := list.Msg.GetProviders()[0].GetKeys()
		Expect(keys[0].GetHealth().GetState()).To(Equal(controlv1.HealthState_HEALTH_STATE_DISABLED))
		Expect(keys[0].GetDisabledByKeygate()).To(BeTrue())
		Expect(keys[1].GetHealth().GetState()).To(Equal(controlv1.HealthState_HEALTH_STATE_RESTING))
		Expect(keys[1].GetHealth().GetLastError()).To(Equal("HTTP 429: Rate limit reached"))
		Expect(keys[1].GetHealth().GetRestUntil().AsTime()).To(BeTemporally(">", time.Now()))
		Expect(keys[1].GetDisabledByKeygate()).To(BeFalse())

		By("an administrator's own disabling is no warning")
		_, err = a.providers.SetProviderKeyEnabled(ctx, connect.NewRequest(&controlv1.SetProviderKeyEnabledRequest{
			ProviderId: p.GetId(), KeyId: resting, Enabled: false}))
		Expect(err).NotTo(HaveOccurred())
		list, err = a.providers.ListProviders(ctx, connect.NewRequest(&controlv1.ListProvidersRequest{}))
		Expect(err).NotTo(HaveOccurred())
		Expect(list.Msg.GetProviders()[0].GetKeys()[1].GetDisabledByKeygate()).To(BeFalse())
	})

	It("rotates a key in place: the new key is sent, the old one never again", func() {
		m := model(p.GetId())
		resp, err := a.providers.UpdateProviderKey(ctx, connect.NewRequest(&controlv1.UpdateProviderKeyRequest{
			ProviderId: p.GetId(), KeyId: p.GetKeys()[0].GetId(), ApiKey: "sk-rotated-0123456789abcdef"}))
		Expect(err).NotTo(HaveOccurred())
		Expect(resp.Msg.GetProvider().GetKeys()[0].GetId()).To(Equal(p.GetKeys()[0].GetId()))
		a.upstream.Enqueue(okTurn())
		a.test(m.GetId())
		Expect(sentKey(0)).To(Equal("Bearer sk-rotated-0123456789abcdef"))
	})

	It("refuses to take its keys to another origin, and lets a provider without keys move", func() {
		_, err := a.providers.UpdateProvider(ctx, connect.NewRequest(&controlv1.UpdateProviderRequest{Id: p.GetId(),
			Settings: settings(a.elsewhere.URL + "/v1")}))
		Expect(err).To(HaveConnectCode(connect.CodeInvalidArgument))
		Expect(err.Error()).To(ContainSubstring("never sent to"))
		for _, k := range p.GetKeys() {
			_, err := a.providers.DeleteProviderKey(ctx, connect.NewRequest(&controlv1.DeleteProviderKeyRequest{ProviderId: p.GetId(), KeyId: k.GetId()}))
			Expect(err).NotTo(HaveOccurred())
		}
		moved, err := a.providers.UpdateProvider(ctx, connect.NewRequest(&controlv1.UpdateProviderRequest{Id: p.GetId(),
			Settings: settings(a.elsewhere.URL + "/v1")}))
		Expect(err).NotTo(HaveOccurred())
		Expect(moved.Msg.GetProvider().GetKeys()).To(BeEmpty())
	})

	It("refuses a key sent with a model that names a provider, and an unknown provider", func() {
		_, err := a.models.CreateModel(ctx, connect.NewRequest(&controlv1.CreateModelRequest{ApiKey: "sk-stray-0123456789",
			Settings: &controlv1.ModelSettings{ModelId: "gpt-a", ProviderId: p.GetId()}}))
		Expect(err).To(HaveConnectCode(connect.CodeInvalidArgument))
		Expect(err.Error()).To(ContainSubstring("keys belong to the provider"))
		_, err = a.models.CreateModel(ctx, connect.NewRequest(&controlv1.CreateModelRequest{
			Settings: &controlv1.ModelSettings{ModelId: "gpt-a", ProviderId: "nope"}}))
		Expect(err).To(HaveConnectCode(connect.CodeInvalidArgument))
		Expect(err.Error()).To(ContainSubstring("provider_id"))
	})

	It("refuses to delete a provider a model uses, naming the model", func() {
		m := model(p.GetId())
		_, err := a.providers.DeleteProvider(ctx, connect.NewRequest(&controlv1.DeleteProviderRequest{Id: p.GetId()}))
		Expect(err).To(HaveConnectCode(connect.CodeInvalidArgument))
		Expect(err.Error()).To(ContainSubstring(m.GetId()))
		_, err = a.models.DeleteModel(ctx, connect.NewRequest(&controlv1.DeleteModelRequest{Id: m.GetId()}))
		Expect(err).NotTo(HaveOccurred())
		_, err = a.providers.DeleteProvider(ctx, connect.NewRequest(&controlv1.DeleteProviderRequest{Id: p.GetId()}))
		Expect(err).NotTo(HaveOccurred())
	})

	It("asks the outbound policy about a provider's base URL when it is saved", func() {
		a.checkURL = func(_ context.Context, raw string) error {
			if strings.Contains(raw, "169.254.169.254") {
				return errors.New("link-local addresses are refused")
			}
			return nil
		}
		_, err := a.providers.CreateProvider(ctx, connect.NewRequest(&controlv1.CreateProviderRequest{
			Settings: settings("http://169.254.169.254/v1")}))
		Expect(err).To(HaveConnectCode(connect.CodeInvalidArgument))
		Expect(err.Error()).To(ContainSubstring("link-local addresses are refused"))
		_, err = a.providers.UpdateProvider(ctx, connect.NewRequest(&controlv1.UpdateProviderRequest{Id: p.GetId(),
			Settings: settings("http://169.254.169.254/v1")}))
		Expect(err).To(HaveConnectCode(connect.CodeInvalidArgument))
	})

	It("discovers models with a provider's stored key, at its origin only", func() {
		a.upstream.Enqueue(providertest.Reply{Header: http.Header{"Content-Type": {"application/json"}},
			Steps: []providertest.Step{{Data: []byte(`{"data":[{"id":"gpt-a"}]}`)}}})
		resp, err := a.models.DiscoverModels(ctx, connect.NewRequest(&controlv1.DiscoverModelsRequest{
			ProviderKind: controlv1.ProviderKind_PROVIDER_KIND_OPENAI_CHAT, BaseUrl: a.upstream.URL + "/v1", KeyFromProviderId: p.GetId()}))
		Expect(err).NotTo(HaveOccurred())
		Expect(resp.Msg.GetModelIds()).To(ConsistOf("gpt-a"))
		Expect(sentKey(0)).To(Equal("Bearer " + first))
		Expect(a.audit.lines()).To(Equal([]string{"system provider.discover " + p.GetId()}), "the use of a stored key is audited")
		_, err = a.models.DiscoverModels(ctx, connect.NewRequest(&controlv1.DiscoverModelsRequest{
			ProviderKind: controlv1.ProviderKind_PROVIDER_KIND_OPENAI_CHAT, BaseUrl: a.elsewhere.URL + "/v1", KeyFromProviderId: p.GetId()}))
		Expect(err).To(HaveConnectCode(connect.CodeInvalidArgument))
		Expect(a.elsewhere.Requests()).To(BeEmpty())
	})
})
