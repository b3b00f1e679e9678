package control_test

import (
	"context"
	"encoding/json"
	"net/http"

	"connectrpc.com/connect"
	. "github.com/onsi/ginkgo/v2"
	. "github.com/onsi/gomega"
	"google.golang.org/protobuf/encoding/protojson"

	"keygate/adapters/provider/providertest"
	controlv1 "keygate/gen/keygate/control/v1"
)

var _ = Describe("ModelService", func() {
	var (
		a   *api
		ctx context.Context
	)
	BeforeEach(func() {
		a = newAPI()
		ctx = context.Background()
	})

	Describe("API keys", func() {
		It("never sends a stored key back, only a masked hint", func() {
			created := a.create("gpt-a", "sk-proj-abcdefghijklmnop")
			list, err := a.models.ListModels(ctx, connect.NewRequest(&controlv1.ListModelsRequest{}))
			Expect(err).NotTo(HaveOccurred())
			for _, m := range append(list.Msg.GetModels(), created) {
				Expect(protojson.Format(m)).NotTo(ContainSubstring("abcdefghijklmnop"))
				Expect(m.GetHasApiKey()).To(BeTrue())
				Expect(m.GetApiKeyHint()).To(Equal("sk-…mnop"))
			}
		})

		It("keeps the stored key when an update leaves the key empty", func() {
			m := a.create("gpt-a", "sk-kept-0123456789")
			s := m.GetSettings()
			s.DisplayName = "Renamed"
			_, err := a.models.UpdateModel(ctx, connect.NewRequest(&controlv1.UpdateModelRequest{Id: m.GetId(), Settings: s}))
			Expect(err).NotTo(HaveOccurred())
			a.upstream.Enqueue(providertest.Reply{Header: http.Header{"Content-Type": {"application/json"}},
				Steps: []providertest.Step{{Data: []byte(`{"data":[]}`)}}})
			_, err = a.models.DiscoverModels(ctx, connect.NewRequest(&controlv1.DiscoverModelsRequest{
				ProviderKind: s.GetProviderKind(), BaseUrl: s.GetBaseUrl(), KeyFromModelId: m.GetId()}))
			Expect(err).NotTo(HaveOccurred())
			Expect(a.upstream.Requests()[0].Header.Get("Authorization")).To(Equal("Bearer sk-kept-0123456789"))
		})

		It("requires a key when a model is created", func() {
			_, err := a.models.CreateModel(ctx, connect.NewRequest(&controlv1.CreateModelRequest{Settings: a.chatSettings("gpt-a")}))
			Expect(err).To(HaveConnectCode(connect.CodeInvalidArgument))
			Expect(err.Error()).To(ContainSubstring("api_key"))
		})
	})

	DescribeTable("rejects settings that cannot work, saying which field to fix",
		func(edit func(*controlv1.ModelSettings), field string) {
			s := a.chatSettings("gpt-a")
			edit(s)
			_, err := a.models.CreateModel(ctx, connect.NewRequest(&controlv1.CreateModelRequest{Settings: s, ApiKey: "sk-x"}))
			Expect(err).To(HaveConnectCode(connect.CodeInvalidArgument))
			Expect(err.Error()).To(ContainSubstring(field))
		},
		Entry("a base URL must be http(s) with a host", func(s *controlv1.ModelSettings) { s.BaseUrl = "ftp://x" }, "base_url"),
		Entry("the protocol must be chosen", func(s *controlv1.ModelSettings) { s.ProviderKind = 0 }, "provider_kind"),
		Entry("the upstream model id is required", func(s *controlv1.ModelSettings) { s.ModelId = " " }, "model_id"),
		Entry("the effort is one of the known levels", func(s *controlv1.ModelSettings) { s.ReasoningEffort = "huge" }, "reasoning_effort"),
		Entry("extra parameters are a JSON object", func(s *controlv1.ModelSettings) { s.ExtraParamsJson = "[1]" }, "extra_params_json"),
	)

	Describe("order", func() {
		var first, second, third *controlv1.Model
		BeforeEach(func() {
			first, second, third = a.create("a", "sk-1"), a.create("b", "sk-2"), a.create("c", "sk-3")
		})
		ids := func() []string {
			list, err := a.models.ListModels(ctx, connect.NewRequest(&controlv1.ListModelsRequest{}))
			Expect(err).NotTo(HaveOccurred())
			var out []string
			for _, m := range list.Msg.GetModels() {
				out = append(out, m.GetSettings().GetModelId())
			}
			return out
		}

		It("lists models in creation order until reordered", func() {
			Expect(ids()).To(Equal([]string{"a", "b", "c"}))
			_, err := a.models.ReorderModels(ctx, connect.NewRequest(&controlv1.ReorderModelsRequest{
				Ids: []string{third.GetId(), first.GetId(), second.GetId()}}))
			Expect(err).NotTo(HaveOccurred())
			Expect(ids()).To(Equal([]string{"c", "a", "b"}))
		})

		It("refuses an order that leaves a model out", func() {
			_, err := a.models.ReorderModels(ctx, connect.NewRequest(&controlv1.ReorderModelsRequest{Ids: []string{first.GetId(), second.GetId()}}))
			Expect(err).To(HaveConnectCode(connect.CodeInvalidArgument))
			Expect(ids()).To(Equal([]string{"a", "b", "c"}))
		})

		It("places a duplicate right after its original, disabled, with the key copied", func() {
			dup, err := a.models.DuplicateModel(ctx, connect.NewRequest(&controlv1.DuplicateModelRequest{Id: first.GetId()}))
			Expect(err).NotTo(HaveOccurred())
			Expect(dup.Msg.GetModel().GetEnabled()).To(BeFalse())
			Expect(dup.Msg.GetModel().GetHasApiKey()).To(BeTrue())
			Expect(dup.Msg.GetModel().GetSettings().GetDisplayName()).To(Equal("Fake a (copy)"))
			Expect(ids()).To(Equal([]string{"a", "a", "b", "c"}))
		})
	})

	It("enables, disables and deletes a model", func() {
		m := a.create("gpt-a", "sk-1")
		off, err := a.models.SetModelEnabled(ctx, connect.NewRequest(&controlv1.SetModelEnabledRequest{Id: m.GetId(), Enabled: false}))
		Expect(err).NotTo(HaveOccurred())
		Expect(off.Msg.GetModel().GetEnabled()).To(BeFalse())
		_, err = a.models.DeleteModel(ctx, connect.NewRequest(&controlv1.DeleteModelRequest{Id: m.GetId()}))
		Expect(err).NotTo(HaveOccurred())
		_, err = a.models.DeleteModel(ctx, connect.NewRequest(&controlv1.DeleteModelRequest{Id: m.GetId()}))
		Expect(err).To(HaveConnectCode(connect.CodeNotFound))
	})

	Describe("DiscoverModels", func() {
		It("lists the upstream's models sorted, using the key given", func() {
			a.upstream.Enqueue(providertest.Reply{Header: http.Header{"Content-Type": {"application/json"}},
				Steps: []providertest.Step{{Data: []byte(`{"data":[{"id":"gpt-b"},{"id":"gpt-a"},{"id":"gpt-b"}]}`)}}})
			resp, err := a.models.DiscoverModels(ctx, connect.NewRequest(&controlv1.DiscoverModelsRequest{
				ProviderKind: controlv1.ProviderKind_PROVIDER_KIND_OPENAI_CHAT, BaseUrl: a.upstream.URL + "/v1", ApiKey: "sk-new"}))
			Expect(err).NotTo(HaveOccurred())
			Expect(resp.Msg.GetModelIds()).To(Equal([]string{"gpt-a", "gpt-b"}))
			Expect(a.upstream.Requests()[0].Path).To(Equal("/v1/models"))
			Expect(a.upstream.Requests()[0].Header.Get("Authorization")).To(Equal("Bearer sk-new"))
		})

		It("says to check the key when the upstream rejects it", func() {
			a.upstream.Enqueue(providertest.Status(http.StatusUnauthorized, `{"error":{"message":"Incorrect API key"}}`))
			_, err := a.models.DiscoverModels(ctx, connect.NewRequest(&controlv1.DiscoverModelsRequest{
				ProviderKind: controlv1.ProviderKind_PROVIDER_KIND_OPENAI_CHAT, BaseUrl: a.upstream.URL + "/v1", ApiKey: "sk-bad"}))
			Expect(err).To(HaveConnectCode(connect.CodeUnavailable))
			Expect(err.Error()).To(ContainSubstring("check the key"))
		})
	})

	Describe("TestModel", func() {
		var m *controlv1.Model
		BeforeEach(func() { m = a.create("gpt-a", "sk-test-0123456789") })

		It("streams progress, then measures tokens from the provider's usage", func() {
			a.upstream.Enqueue(providertest.Stream(providertest.ChatSSE(providertest.Turn{
				Text: providertest.Words("1 2 3 4 5"), Usage: providertest.Usage{Input: 20, Output: 9}})))
			msgs := a.test(m.GetId())
			Expect(msgs[0].GetPhase()).To(Equal(controlv1.TestPhase_TEST_PHASE_CONNECTING))
			Expect(msgs).To(ContainElement(HaveField("Phase", controlv1.TestPhase_TEST_PHASE_STREAMING)))
			res := msgs[len(msgs)-1].GetResult()
			Expect(res.GetOk()).To(BeTrue(), res.GetError())
			Expect(res.GetOutputText()).To(Equal("1 2 3 4 5"))
			Expect(res.GetOutputTokens()).To(Equal(int64(9)))
			Expect(res.GetTokensEstimated()).To(BeFalse())
			Expect(res.GetTokensPerSecond()).To(BeNumerically(">", 0))
		})

		It("tests a Gemini model over Gemini's own path, key header and SSE, and reports a Google error body's message", func() {
			s := a.chatSettings("gemini-2.5-flash")
			s.ProviderKind, s.BaseUrl = controlv1.ProviderKind_PROVIDER_KIND_GEMINI, a.upstream.URL
			resp, err := a.models.CreateModel(ctx, connect.NewRequest(&controlv1.CreateModelRequest{Settings: s, ApiKey: "AIza-test-0123456789", Enabled: true}))
			Expect(err).NotTo(HaveOccurred())
			a.upstream.Enqueue(providertest.Stream(providertest.GeminiSSE(providertest.Turn{
				Text: providertest.Words("1 2 3"), Usage: providertest.Usage{Input: 20, CacheRead: 4, Output: 9}})))
			msgs := a.test(resp.Msg.GetModel().GetId())
			res := msgs[len(msgs)-1].GetResult()
			Expect(res.GetOk()).To(BeTrue(), res.GetError())
			Expect(res.GetOutputText()).To(Equal("1 2 3"))
			Expect(res.GetOutputTokens()).To(Equal(int64(9)))
			reqs := a.upstream.Requests()
			Expect(reqs).To(HaveLen(1))
			Expect(reqs[0].Path + "?" + reqs[0].Query).To(Equal("/v1beta/models/gemini-2.5-flash:streamGenerateContent?alt=sse"))
			Expect(reqs[0].Header.Get("X-Goog-Api-Key")).To(Equal("AIza-test-0123456789"))

			a.upstream.Enqueue(providertest.Status(http.StatusBadRequest,
				`{"error":{"code":400,"message":"API key not valid. Please pass a valid API key.","status":"INVALID_ARGUMENT"}}`))
			msgs = a.test(resp.Msg.GetModel().GetId())
			res = msgs[len(msgs)-1].GetResult()
			Expect(res.GetOk()).To(BeFalse())
			Expect(res.GetError()).To(ContainSubstring("API key not valid"))
			Expect(res.GetError()).NotTo(ContainSubstring("AIza-test-0123456789"))
		})

		It("records the test as a call, with the raw stream in detailed mode", func() {
			a.setDetailed(true)
			a.upstream.Enqueue(providertest.Stream(providertest.ChatSSE(providertest.Turn{Text: providertest.Words("1 2 3")})))
			res := a.test(m.GetId())
			callID := res[len(res)-1].GetResult().GetCallId()
			Expect(res[len(res)-1].GetResult().GetRawResponse()).To(ContainSubstring("data: [DONE]"))
			call, err := a.calls.GetCall(ctx, connect.NewRequest(&controlv1.GetCallRequest{CallId: callID}))
			Expect(err).NotTo(HaveOccurred())
			Expect(call.Msg.GetCall().GetStatus()).To(Equal(controlv1.CallStatus_CALL_STATUS_COMPLETED))
			Expect(call.Msg.GetCall().GetKind()).To(Equal(controlv1.CallKind_CALL_KIND_TEST))
			Expect(call.Msg.GetRequest().GetBody()).To(ContainSubstring("Output the numbers 1 through 120"))
			Expect(protojson.Format(call.Msg)).NotTo(ContainSubstring("sk-test-0123456789"))
		})

		It("reports a rejected key as a failed test that says what to do", func() {
			a.upstream.Enqueue(providertest.Status(http.StatusUnauthorized, `{"error":{"message":"Incorrect API key provided"}}`))
			res := a.test(m.GetId())
			result := res[len(res)-1].GetResult()
			Expect(result.GetOk()).To(BeFalse())
			Expect(result.GetError()).To(ContainSubstring("paste a valid key"))
		})

		DescribeTable("asks a fill-in-the-middle model to fill a tiny gap instead of answering a chat prompt",
			func(kind controlv1.ProviderKind, path string, render func(providertest.Turn) []byte) {
				s := a.chatSettings("fim-a")
				s.ProviderKind = kind
				resp, err := a.models.CreateModel(ctx, connect.NewRequest(&controlv1.CreateModelRequest{Settings: s, ApiKey: "sk-fim-0123456789", Enabled: true}))
				Expect(err).NotTo(HaveOccurred())
				a.upstream.Enqueue(providertest.Stream(render(providertest.Turn{Text: []string{"a", " + b"}, Usage: providertest.Usage{Input: 12, Output: 3}})))
				msgs := a.test(resp.Msg.GetModel().GetId())
				res := msgs[len(msgs)-1].GetResult()
				Expect(res.GetOk()).To(BeTrue(), res.GetError())
				Expect(res.GetOutputText()).To(Equal("a + b"))
				Expect(res.GetOutputTokens()).To(Equal(int64(3)))
				reqs := a.upstream.Requests()
				Expect(reqs).To(HaveLen(1))
				Expect(reqs[0].Path).To(Equal(path))
				var body map[string]any
				Expect(json.Unmarshal(reqs[0].Body, &body)).To(Succeed())
				Expect(body).To(HaveKeyWithValue("prompt", "def add(a, b):\n    return "))
				Expect(body).To(HaveKeyWithValue("suffix", "\n"))
				Expect(body).To(HaveKeyWithValue("temperature", BeNumerically("==", 0)))
				Expect(body).NotTo(HaveKey("messages"))
			},
			Entry("OpenAI completions with suffix", controlv1.ProviderKind_PROVIDER_KIND_OPENAI_COMPLETIONS, "/v1/completions", providertest.CompletionsSSE),
			Entry("Mistral FIM", controlv1.ProviderKind_PROVIDER_KIND_MISTRAL_FIM, "/v1/fim/completions", providertest.MistralSSE),
		)

		It("answers NotFound for an unknown model", func() {
			stream, err := a.models.TestModel(ctx, connect.NewRequest(&controlv1.TestModelRequest{Id: "nope"}))
			Expect(err).NotTo(HaveOccurred())
			for stream.Receive() {
			}
			Expect(stream.Err()).To(HaveConnectCode(connect.CodeNotFound))
		})
	})
})
