package discovery_test

import (
	"context"
	"errors"
	"strings"

	. "github.com/onsi/ginkgo/v2"
	. "github.com/onsi/gomega"

	"keygate/adapters/provider"
	"keygate/adapters/provider/discovery"
	"keygate/adapters/provider/providertest"
	"keygate/domain/llm"
)

func ok(body string) providertest.Reply {
	return providertest.Reply{Status: 200, Steps: []providertest.Step{{Data: []byte(body)}}}
}

var _ = Describe("Candidates", func() {
	DescribeTable("derives the model-list URL from a configured base",
		func(base string, want ...string) {
			Expect(discovery.Candidates(base)).To(Equal(want))
		},
		Entry("a Chat request URL becomes its /models", "https://api.openai.com/v1/chat/completions", "https://api.openai.com/v1/models"),
		Entry("an Anthropic request URL becomes its /models", "https://api.anthropic.com/v1/messages", "https://api.anthropic.com/v1/models"),
		Entry("a Mistral FIM request URL becomes its /models", "https://codestral.mistral.ai/v1/fim/completions", "https://codestral.mistral.ai/v1/models"),
		Entry("a completions request URL becomes its /models", "http://127.0.0.1:8000/v1/completions", "http://127.0.0.1:8000/v1/models"),
		Entry("a path ending in /models is used as is", "https://gw.example.com/openai/models", "https://gw.example.com/openai/models"),
		Entry("a versioned base appends /models", "https://open.bigmodel.cn/api/paas/v4", "https://open.bigmodel.cn/api/paas/v4/models"),
		Entry("a bare host asks /v1/models", "https://api.deepseek.com", "https://api.deepseek.com/v1/models"),
		Entry("a coding-plan subpath tries /v1/models, then /models", "https://api.kimi.com/coding", "https://api.kimi.com/coding/v1/models", "https://api.kimi.com/coding/models"),
	)
})

var _ = Describe("Lister.List", func() {
	var srv *providertest.Server

	BeforeEach(func() {
		srv = providertest.NewServer()
		DeferCleanup(srv.Close)
	})

	It("lists OpenAI-compatible models sorted and de-duplicated, with the bearer key and no custom User-Agent", func() {
		srv.Enqueue(ok(`{"object":"list","data":[{"id":"gpt-5.1"},{"id":"gpt-4o"},"plain-id",{"name":"named"},{"id":"gpt-4o"}]}`))
		ids, err := discovery.New(nil, provider.Builtin()).List(context.Background(), discovery.Query{Kind: llm.ProviderOpenAIChat, BaseURL: srv.URL + "/v1",
			APIKey: "sk-1", Headers: map[string]string{"User-Agent": "evil", "X-Org": "o"}})
		Expect(err).NotTo(HaveOccurred())
		Expect(ids).To(Equal([]string{"gpt-4o", "gpt-5.1", "named", "plain-id"}))
		req := srv.Requests()[0]
		Expect(req.Path).To(Equal("/v1/models"))
		Expect(req.Header.Get("Authorization")).To(Equal("Bearer sk-1"))
		Expect(req.Header.Get("X-Org")).To(Equal("o"))
		Expect(req.Header.Get("User-Agent")).NotTo(Equal("evil"))
	})

	It("pages through Anthropic models with after_id while has_more", func() {
		srv.Enqueue(ok(`{"data":[{"id":"claude-b"}],"has_more":true,"last_id":"claude-b"}`),
			ok(`{"data":[{"id":"claude-a"}],"has_more":false,"last_id":"claude-a"}`))
		ids, err := discovery.New(nil, provider.Builtin()).List(context.Background(), discovery.Query{Kind: llm.ProviderAnthropic,
			BaseURL: srv.URL + "/v1/messages", APIKey: "sk-ant"})
		Expect(err).NotTo(HaveOccurred())
		Expect(ids).To(Equal([]string{"claude-a", "claude-b"}))
		reqs := srv.Requests()
		Expect(reqs[0].Query).To(Equal("limit=100"))
		Expect(reqs[1].Query).To(Equal("after_id=claude-b&limit=100"))
		Expect(reqs[0].Header.Get("X-Api-Key")).To(Equal("sk-ant"))
		Expect(reqs[0].Header.Get("Anthropic-Version")).To(Equal("2023-06-01"))
	})

	It("pages through Gemini models at /v1beta/models with pageToken, keeping those that generate content, with the key in x-goog-api-key", func() {
		srv.Enqueue(ok(`{"models":[{"name":"models/gemini-2.5-flash","supportedGenerationMethods":["generateContent","countTokens"]},
			{"name":"models/text-embedding-004","supportedGenerationMethods":["embedContent"]}],"nextPageToken":"Ch1t"}`),
			ok(`{"models":[{"name":"models/gemini-3-pro-preview","supportedGenerationMethods":["generateContent"]}]}`))
		ids, err := discovery.New(nil, provider.Builtin()).List(context.Background(), discovery.Query{Kind: llm.ProviderGemini,
			BaseURL: srv.URL, APIKey: "AIza-key"})
		Expect(err).NotTo(HaveOccurred())
		Expect(ids).To(Equal([]string{"gemini-2.5-flash", "gemini-3-pro-preview"}))
		reqs := srv.Requests()
		Expect(reqs).To(HaveLen(2))
		Expect(reqs[0].Path).To(Equal("/v1beta/models"))
		Expect(reqs[0].Query).To(Equal("pageSize=1000"))
		Expect(reqs[1].Query).To(Equal("pageSize=1000&pageToken=Ch1t"))
		Expect(reqs[0].Header.Get("X-Goog-Api-Key")).To(Equal("AIza-key"))
		Expect(reqs[0].Query + reqs[1].Query).NotTo(ContainSubstring("AIza"))
	})

	It("lists an OpenAI Responses endpoint the way it lists a Chat one", func() {
		srv.Enqueue(ok(`{"data":[{"id":"gpt-5.1"}]}`))
		ids, err := discovery.New(nil, provider.Builtin()).List(context.Background(), discovery.Query{Kind: llm.ProviderOpenAIResponses,
			BaseURL: srv.URL + "/v1/responses", APIKey: "sk-1"})
		Expect(err).NotTo(HaveOccurred())
		Expect(ids).To(Equal([]string{"gpt-5.1"}))
		Expect(srv.Requests()[0].Path).To(Equal("/v1/models"))
		Expect(srv.Requests()[0].Header.Get("Authorization")).To(Equal("Bearer sk-1"))
	})

	DescribeTable("lists the models of a fill-in-the-middle endpoint with the bearer key",
		func(kind llm.ProviderKind, base string) {
			srv.Enqueue(ok(`{"object":"list","data":[{"id":"codestral-latest","object":"model"},{"id":"codestral-2501","object":"model"}]}`))
			ids, err := discovery.New(nil, provider.Builtin()).List(context.Background(), discovery.Query{Kind: kind, BaseURL: srv.URL + base, APIKey: "sk-f"})
			Expect(err).NotTo(HaveOccurred())
			Expect(ids).To(Equal([]string{"codestral-2501", "codestral-latest"}))
			Expect(srv.Requests()[0].Path).To(Equal("/v1/models"))
			Expect(srv.Requests()[0].Header.Get("Authorization")).To(Equal("Bearer sk-f"))
		},
		Entry("Mistral FIM", llm.ProviderMistralFIM, "/v1/fim/completions"),
		Entry("OpenAI completions with suffix", llm.ProviderOpenAICompletions, "/v1"),
	)

	It("refuses a kind no protocol is registered for, sending nothing", func() {
		_, err := discovery.New(nil, provider.Builtin()).List(context.Background(), discovery.Query{Kind: "bedrock",
			BaseURL: srv.URL + "/v1", APIKey: "sk-1"})
		Expect(err).To(MatchError(provider.ErrUnknownKind))
		Expect(err).To(MatchError(ContainSubstring(`unknown provider kind "bedrock"`)))
		Expect(srv.Requests()).To(BeEmpty())
	})

	It("falls back to <path>/models when <path>/v1/models is not found", func() {
		srv.Enqueue(providertest.Status(404, `not found`), ok(`{"data":[{"id":"k2"}]}`))
		ids, err := discovery.New(nil, provider.Builtin()).List(context.Background(), discovery.Query{Kind: llm.ProviderOpenAIChat, BaseURL: srv.URL + "/coding", APIKey: "k"})
		Expect(err).NotTo(HaveOccurred())
		Expect(ids).To(Equal([]string{"k2"}))
		Expect(srv.Requests()[1].Path).To(Equal("/coding/models"))
	})

	It("classifies a rejected key as authorization without echoing it", func() {
		srv.Enqueue(providertest.Status(401, `{"error":"bad key sk-secret-1"}`))
		_, err := discovery.New(nil, provider.Builtin()).List(context.Background(), discovery.Query{Kind: llm.ProviderOpenAIChat, BaseURL: srv.URL, APIKey: "sk-secret-1"})
		var perr *llm.ProviderError
		Expect(errors.As(err, &perr)).To(BeTrue())
		Expect(perr.Class).To(Equal(llm.ErrorAuthorization))
		Expect(perr.Message).NotTo(ContainSubstring("sk-secret-1"))
	})

	It("keeps only the status and a short, sanitised reason of an error body", func() {
		body := "<html><body>internal admin page\r\nX-Org: org-secret-value\x1b[2J" + strings.Repeat(" row", 2000) + "</body></html>"
		srv.Enqueue(providertest.Status(403, body))
		_, err := discovery.New(nil, provider.Builtin()).List(context.Background(), discovery.Query{Kind: llm.ProviderOpenAIChat, BaseURL: srv.URL, APIKey: "k",
			Headers: map[string]string{"X-Org": "org-secret-value"}})
		var perr *llm.ProviderError
		Expect(errors.As(err, &perr)).To(BeTrue())
		Expect(perr.Status).To(Equal(403))
		Expect(perr.Message).To(HavePrefix("OpenAI models 403: <html><body>internal admin page X-Org: [redacted] row row"))
		Expect(len(perr.Message)).To(BeNumerically("<", 300))
		Expect(perr.Message).NotTo(ContainSubstring("org-secret-value"))
		Expect(perr.Message).NotTo(ContainSubstring("\r"))
		Expect(perr.Message).NotTo(ContainSubstring("\x1b"))
	})
})
