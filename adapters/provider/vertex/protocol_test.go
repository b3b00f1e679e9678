package vertex_test

import (
	"bytes"
	"context"
	"encoding/json"
	"errors"
	"io"
	"net/http"
	"net/http/httptest"
	"net/url"
	"os"
	"path/filepath"

	. "github.com/onsi/ginkgo/v2"
	. "github.com/onsi/gomega"

	"keygate/adapters/provider/protocol"
	"keygate/adapters/provider/providertest"
	"keygate/adapters/provider/vertex"
	"keygate/domain/llm"
	"keygate/ports"
)

func fixture(name string) []byte {
	raw, err := os.ReadFile(filepath.Join("testdata", name))
	ExpectWithOffset(1, err).NotTo(HaveOccurred())
	return raw
}

func body(p protocol.Protocol, req llm.Request) []byte {
	b, err := p.AppendRequest(nil, req, protocol.RequestOptions{})
	ExpectWithOffset(1, err).NotTo(HaveOccurred())
	ExpectWithOffset(1, json.Valid(b)).To(BeTrue(), "%s", b)
	return b
}

func top(b []byte) map[string]json.RawMessage {
	var m map[string]json.RawMessage
	ExpectWithOffset(1, json.Unmarshal(b, &m)).To(Succeed())
	return m
}

func must(u url.URL) string { return u.String() }

func parse(s string) url.URL {
	u, err := url.Parse(s)
	ExpectWithOffset(1, err).NotTo(HaveOccurred())
	return *u
}

var _ = Describe("Vertex AI URLs", func() {
	l := vertex.Location{Project: "acme-vertex", Region: "us-east5"}

	It("calls a region's host, and aiplatform.googleapis.com for the global location", func() {
		Expect(l.Base()).To(Equal("https://us-east5-aiplatform.googleapis.com"))
		Expect(vertex.Location{Project: "acme-vertex", Region: vertex.Global}.Base()).To(Equal("https://aiplatform.googleapis.com"))
	})

	It("names the project's location, the publisher and the model, with the streaming method", func() {
		Expect(must(vertex.AnthropicURL(parse(l.Base()), l, "claude-sonnet-4-5@20250929"))).To(Equal(
			"https://us-east5-aiplatform.googleapis.com/v1/projects/acme-vertex/locations/us-east5/publishers/anthropic/models/claude-sonnet-4-5@20250929:streamRawPredict"))
		g := vertex.Location{Project: "acme-vertex", Region: vertex.Global}
		Expect(must(vertex.GeminiURL(parse(g.Base()), g, "gemini-2.5-pro"))).To(Equal(
			"https://aiplatform.googleapis.com/v1/projects/acme-vertex/locations/global/publishers/google/models/gemini-2.5-pro:streamGenerateContent?alt=sse"))
	})

	It("puts the same path under a base that replaces Google's host (a test's fake, a private endpoint)", func() {
		Expect(must(vertex.AnthropicURL(parse("http://127.0.0.1:8000"), l, "claude-x"))).To(Equal(
			"http://127.0.0.1:8000/v1/projects/acme-vertex/locations/us-east5/publishers/anthropic/models/claude-x:streamRawPredict"))
		Expect(must(vertex.GeminiURL(parse("https://psc.example.internal/v1/projects/other/locations/europe-west4"), l, "gemini-x"))).To(Equal(
			"https://psc.example.internal/v1/projects/other/locations/europe-west4/publishers/google/models/gemini-x:streamGenerateContent?alt=sse"),
			"a base naming its project's location keeps it")
		Expect(must(vertex.GeminiURL(parse("https://global-aiplatform.googleapis.com/v1/projects/p1/locations/global"), l, "gemini-x"))).To(Equal(
			"https://aiplatform.googleapis.com/v1/projects/p1/locations/global/publishers/google/models/gemini-x:streamGenerateContent?alt=sse"),
			"a region-templated host of the global location is Google's global host")
	})

	DescribeTable("refuses a project or location that is not a name",
		func(l vertex.Location) { Expect(l.Check()).To(HaveOccurred()) },
		Entry("no project", vertex.Location{Region: "us-east5"}),
		Entry("no region", vertex.Location{Project: "acme-vertex"}),
		Entry("a path in the project", vertex.Location{Project: "acme/../x", Region: "us-east5"}),
		Entry("a host in the region", vertex.Location{Project: "acme-vertex", Region: "evil.example#"}),
	)
})

var _ = Describe("Anthropic models on Vertex AI (vertex.Anthropic)", func() {
	p := vertex.Anthropic()
	reqs := providertest.Conversation(llm.ProviderVertexAnthropic)

	It("sends Anthropic's Messages body without a model, with anthropic_version vertex-2023-10-16, streamed", func() {
		b := body(p, reqs[len(reqs)-1])
		m := top(b)
		Expect(m).NotTo(HaveKey("model"))
		Expect(string(m["anthropic_version"])).To(Equal(`"vertex-2023-10-16"`))
		Expect(string(m["stream"])).To(Equal("true"))
		Expect(m).To(HaveKey("max_tokens"))
		Expect(bytes.Count(b, []byte(`"cache_control":{"type":"ephemeral"}`))).To(BeNumerically(">=", 3), "Anthropic's cache breakpoints are kept")
	})

	It("keeps every cycle's prompt at the start of the next cycle's, apart from the moving breakpoint, the same bytes every time", func() {
		for n := 0; n+1 < len(reqs); n++ {
			a, err := providertest.PromptSegments(p.Kind, body(p, reqs[n]))
			Expect(err).NotTo(HaveOccurred())
			b, err := providertest.PromptSegments(p.Kind, body(p, reqs[n+1]))
			Expect(err).NotTo(HaveOccurred())
			Expect(providertest.Retained(a, b).Extends()).To(BeTrue(), "cycle %d: %s", n, providertest.Retained(a, b).Changed)
			Expect(body(p, reqs[n])).To(Equal(body(p, reqs[n])))
		}
	})

	It("replays the signed thinking of a turn Vertex produced, and none of a turn Anthropic's own API produced", func() {
		own := body(p, reqs[len(reqs)-1])
		Expect(string(own)).To(ContainSubstring(`"signature":"sig-1"`))
		direct := body(p, providertest.Conversation(llm.ProviderAnthropic)[len(reqs)-1])
		Expect(string(direct)).NotTo(ContainSubstring(`"signature":"sig-1"`))
		Expect(reqs[len(reqs)-1].Messages[1].Assistant.Replay.Kind).To(Equal(llm.ProviderVertexAnthropic), "the caller's request is left as it was")
	})

	It("relays a native Anthropic body (Claude Code through the compatible API) without its model, with the version", func() {
		req := llm.Request{Model: "claude-x", Native: &llm.Native{Kind: llm.ProviderAnthropic,
			Body: []byte(`{"model":"claude-opus","max_tokens":10,"messages":[{"role":"user","content":"hi"}],"stream":false}`)}}
		Expect(string(body(p, req))).To(Equal(`{"max_tokens":10,"messages":[{"role":"user","content":"hi"}],"stream":true,"anthropic_version":"vertex-2023-10-16"}`))
	})

	It("decodes Vertex's stream of Anthropic events, with usage and cache reads, and stamps replay state with its own kind", func() {
		dec := p.NewDecoder()
		events, err := providertest.DecodeAll(dec, fixture("vertex-anthropic-tool-use-docs.sse"))
		Expect(err).NotTo(HaveOccurred())
		Expect(providertest.CheckGrammar(events)).To(Succeed())
		s := providertest.Summarize(events)
		Expect(s.Text).To(Equal("I'll read the file."))
		Expect(s.Calls).To(HaveLen(1))
		Expect(s.Calls[0].Name).To(Equal("Read"))
		Expect(s.Calls[0].Arguments).To(Equal(`{"path": "a.txt"}`))
		Expect(s.Finish).To(Equal(llm.FinishToolUse))
		Expect([]int64{s.Usage.Input, s.Usage.CacheRead, s.Usage.Output}).To(Equal([]int64{412, 2630, 58}))
		id, model := dec.Meta()
		Expect(id).To(Equal("msg_vrtx_01Kq3rTn8WbPzE5yJ2mXcA7d"))
		Expect(model).To(Equal("claude-sonnet-4-5-20250929"))

		thinking := providertest.AnthropicSSE(providertest.Turn{Thinking: []string{"hmm"}, Signature: "sig-v", Text: []string{"ok"}})
		events, err = providertest.DecodeAll(p.NewDecoder(), thinking)
		Expect(err).NotTo(HaveOccurred())
		r := providertest.Summarize(events).Replay
		Expect(r).NotTo(BeNil())
		Expect(r.Kind).To(Equal(llm.ProviderVertexAnthropic))
		Expect(string(r.Value)).To(ContainSubstring("sig-v"))
	})
})

var _ = Describe("Gemini on Vertex AI (vertex.Gemini)", func() {
	p := vertex.Gemini()
	reqs := providertest.Conversation(llm.ProviderVertexGemini)

	It("sends the Gemini API's GenerateContentRequest, each cycle's body a byte prefix of the next one's", func() {
		for n := 0; n+1 < len(reqs); n++ {
			a, b := body(p, reqs[n]), body(p, reqs[n+1])
			Expect(bytes.HasPrefix(b, bytes.TrimSuffix(a, []byte("]}")))).To(BeTrue(), "cycle %d:\n%s\n%s", n, a, b)
		}
		m := top(body(p, reqs[len(reqs)-1]))
		Expect(m).To(HaveKey("contents"))
		Expect(m).To(HaveKey("systemInstruction"))
		Expect(m).NotTo(HaveKey("model"))
	})

	It("replays thought signatures only to the kind of endpoint that produced them", func() {
		Expect(string(body(p, reqs[len(reqs)-1]))).To(ContainSubstring(`"thoughtSignature":"sig-1"`))
		fromAPI := providertest.Conversation(llm.ProviderGemini)
		Expect(string(body(p, fromAPI[len(fromAPI)-1]))).NotTo(ContainSubstring(`sig-1`), "a Gemini API signature is not sent to Vertex")
	})

	It("decodes Vertex's chunks (createTime, trafficType) with thought and cached tokens, and stamps the signature with its own kind", func() {
		dec := p.NewDecoder()
		events, err := providertest.DecodeAll(dec, fixture("vertex-gemini-function-call-docs.sse"))
		Expect(err).NotTo(HaveOccurred())
		Expect(providertest.CheckGrammar(events)).To(Succeed())
		s := providertest.Summarize(events)
		Expect(s.Thinking).To(ContainSubstring("The user wants a.txt."))
		Expect(s.Calls).To(HaveLen(1))
		Expect(s.Calls[0].Arguments).To(Equal(`{"path":"a.txt"}`))
		Expect(s.Finish).To(Equal(llm.FinishToolUse))
		Expect([]int64{s.Usage.Input, s.Usage.CacheRead, s.Usage.Output, s.Usage.Reasoning}).To(Equal([]int64{238, 3072, 91, 75}))
		Expect(s.Replay.Kind).To(Equal(llm.ProviderVertexGemini))
		Expect(string(s.Replay.Value)).To(ContainSubstring("CiIBVKhc7tqIYe1m3ZwVKsVnE5b3wq0mO2rL9Jb0Gf8Xj1qU"))
		id, model := dec.Meta()
		Expect([]string{id, model}).To(Equal([]string{"G6k0aYTxHs2Dm9IPqfqGkAQ", "gemini-2.5-pro"}))
	})
})

var _ = Describe("Vertex AI calls and listings, authorised with a Google access token", func() {
	var (
		endpoint *tokenEndpoint
		creds    protocol.Credentials
	)
	BeforeEach(func() {
		endpoint = newTokenEndpoint(nil)
		key, priv := serviceAccountKey(endpoint.URL + "/token")
		endpoint.pub = &priv.PublicKey
		creds = protocol.Credentials{Key: string(key), Cloud: ports.CloudSettings{Project: "acme-vertex", Region: "us-east5"}, HTTP: http.DefaultClient}
	})

	It("signs a call with the bearer token of the provider's service-account key, fetched once for the calls that follow", func() {
		for _, p := range []protocol.Protocol{vertex.Anthropic(), vertex.Gemini()} {
			u := p.URL(parse("https://us-east5-aiplatform.googleapis.com/v1/projects/acme-vertex/locations/us-east5"), "m")
			req, err := http.NewRequest(http.MethodPost, u.String(), nil)
			Expect(err).NotTo(HaveOccurred())
			Expect(p.Sign(context.Background(), req, nil, creds)).To(Succeed())
			Expect(req.Header.Get("Authorization")).To(Equal("Bearer ya29.fake-1"))
		}
		Expect(endpoint.count()).To(Equal(1), "both protocols share the key's token")
	})

	It("refuses, without sending anything, a base URL that lost the project's location, and a key that is not a service account's", func() {
		req, err := http.NewRequest(http.MethodPost, "http://127.0.0.1:9/publishers/anthropic/models/m:streamRawPredict", nil)
		Expect(err).NotTo(HaveOccurred())
		err = vertex.Anthropic().Sign(context.Background(), req, nil, creds)
		var perr *llm.ProviderError
		Expect(errors.As(err, &perr)).To(BeTrue())
		Expect(perr.Class).To(Equal(llm.ErrorBadRequest))
		Expect(perr.Message).To(ContainSubstring("/v1/projects/PROJECT/locations/REGION"))

		req, err = http.NewRequest(http.MethodPost, "http://127.0.0.1:9/v1/projects/p1/locations/us-east5/publishers/anthropic/models/m:streamRawPredict", nil)
		Expect(err).NotTo(HaveOccurred())
		creds.Key = `{"type":"service_account","private_key":"-----BEGIN PRIVATE KEY-----s3cret"}`
		err = vertex.Anthropic().Sign(context.Background(), req, nil, creds)
		Expect(errors.As(err, &perr)).To(BeTrue())
		Expect(perr.Class).To(Equal(llm.ErrorAuthorization))
		Expect(perr.Message).NotTo(ContainSubstring("s3cret"))
		Expect(req.Header.Get("Authorization")).To(BeEmpty())
		Expect(endpoint.count()).To(BeZero())
	})

	It("tells a token endpoint that is down (a transient failure, retried) from one that refuses the key (an authorization failure)", func() {
		down := httptest.NewServer(http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
			w.WriteHeader(http.StatusServiceUnavailable)
		}))
		DeferCleanup(down.Close)
		key, _ := serviceAccountKey(down.URL + "/token")
		creds.Key = string(key)
		req, err := http.NewRequest(http.MethodPost, "http://127.0.0.1:9/v1/projects/p1/locations/us-east5/publishers/google/models/m:streamGenerateContent", nil)
		Expect(err).NotTo(HaveOccurred())
		err = vertex.Gemini().Sign(context.Background(), req, nil, creds)
		var perr *llm.ProviderError
		Expect(errors.As(err, &perr)).To(BeTrue())
		Expect(perr.Class).To(Equal(llm.ErrorTransient))

		endpoint.refuse = true
		key, _ = serviceAccountKey(endpoint.URL + "/token")
		creds.Key = string(key)
		err = vertex.Gemini().Sign(context.Background(), req, nil, creds)
		Expect(errors.As(err, &perr)).To(BeTrue())
		Expect(perr.Class).To(Equal(llm.ErrorAuthorization))
		Expect(perr.Message).To(ContainSubstring("invalid_grant"))
	})

	It("pages through the publisher's models in Model Garden with the token and gives the ids calls name", func() {
		var asked []*http.Request
		garden := httptest.NewServer(http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
			asked = append(asked, r)
			page := `{"publisherModels":[{"name":"publishers/anthropic/models/claude-sonnet-4-5"},{"name":"publishers/anthropic/models/claude-opus-4-1"}],"nextPageToken":"p2"}`
			if len(asked) == 2 {
				page = `{"publisherModels":[{"name":"publishers/anthropic/models/claude-haiku-4-5"}]}`
			}
			_, _ = io.WriteString(w, page)
		}))
		DeferCleanup(garden.Close)
		ids, err := vertex.Anthropic().Models.Discover(context.Background(), garden.URL+"/v1/projects/acme-vertex/locations/us-east5", creds)
		Expect(err).NotTo(HaveOccurred())
		Expect(ids).To(Equal([]string{"claude-sonnet-4-5", "claude-opus-4-1", "claude-haiku-4-5"}))
		Expect(asked).To(HaveLen(2))
		Expect(asked[0].URL.String()).To(Equal("/v1beta1/publishers/anthropic/models?pageSize=100"))
		Expect(asked[1].URL.String()).To(Equal("/v1beta1/publishers/anthropic/models?pageSize=100&pageToken=p2"))
		Expect(asked[1].Header.Get("Authorization")).To(Equal("Bearer ya29.fake-1"))
	})

	It("reports a refused listing with Google's message", func() {
		garden := httptest.NewServer(http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
			w.WriteHeader(http.StatusForbidden)
			_, _ = io.WriteString(w, `{"error":{"code":403,"message":"Permission 'aiplatform.publisherModels.list' denied","status":"PERMISSION_DENIED"}}`)
		}))
		DeferCleanup(garden.Close)
		_, err := vertex.Gemini().Models.Discover(context.Background(), garden.URL, creds)
		var perr *llm.ProviderError
		Expect(errors.As(err, &perr)).To(BeTrue())
		Expect(perr.Class).To(Equal(llm.ErrorAuthorization))
		Expect(perr.Message).To(ContainSubstring("aiplatform.publisherModels.list"))
	})
})
