package agentspec_test

import (
	"bytes"
	"crypto/rand"
	"crypto/rsa"
	"crypto/x509"
	"encoding/json"
	"encoding/pem"
	"fmt"
	"io"
	"net/http"
	"net/http/httptest"
	"net/url"
	"strings"
	"sync"

	. "github.com/onsi/ginkgo/v2"
	. "github.com/onsi/gomega"

	"keygate/adapters/provider/providertest"
	"keygate/domain/llm"
	controlv1 "keygate/gen/keygate/control/v1"
)

// googleTokens is a fake of Google's OAuth token endpoint: it answers
// every JWT bearer assertion with a new access token.
type googleTokens struct {
	*httptest.Server
	mu         sync.Mutex
	assertions []string
}

func newGoogleTokens() *googleTokens {
	g := &googleTokens{}
	g.Server = httptest.NewServer(http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
		raw, _ := io.ReadAll(r.Body)
		form, _ := url.ParseQuery(string(raw))
		g.mu.Lock()
		g.assertions = append(g.assertions, form.Get("assertion"))
		n := len(g.assertions)
		g.mu.Unlock()
		if form.Get("grant_type") != "urn:ietf:params:oauth:grant-type:jwt-bearer" || strings.Count(form.Get("assertion"), ".") != 2 {
			w.WriteHeader(http.StatusBadRequest)
			_, _ = io.WriteString(w, `{"error":"invalid_grant"}`)
			return
		}
		w.Header().Set("Content-Type", "application/json")
		_, _ = fmt.Fprintf(w, `{"access_token":"ya29.agentspec-%d","token_type":"Bearer","expires_in":3600}`, n)
	}))
	DeferCleanup(g.Close)
	return g
}

func (g *googleTokens) count() int {
	g.mu.Lock()
	defer g.mu.Unlock()
	return len(g.assertions)
}

// serviceAccountJSON is a key file as Google issues it, indented, for a
// fresh RSA key whose token endpoint is tokenURI.
func serviceAccountJSON(tokenURI string) string {
	priv, err := rsa.GenerateKey(rand.Reader, 2048)
	Expect(err).NotTo(HaveOccurred())
	der, err := x509.MarshalPKCS8PrivateKey(priv)
	Expect(err).NotTo(HaveOccurred())
	key, err := json.MarshalIndent(map[string]string{
		"type": "service_account", "project_id": "acme-vertex", "private_key_id": "agentspec-key",
		"private_key":  string(pem.EncodeToMemory(&pem.Block{Type: "PRIVATE KEY", Bytes: der})),
		"client_email": "keygate@acme-vertex.iam.gserviceaccount.com", "token_uri": tokenURI,
	}, "", "  ")
	Expect(err).NotTo(HaveOccurred())
	return string(key)
}

// vertexLocation is the project location path of the specs' Vertex
// provider, under the fake's base URL as under Google's host.
const vertexLocation = "/v1/projects/acme-vertex/locations/us-east5"

// addVertexModel configures a Vertex AI provider of kind on a fake of its
// own, with a service-account key of the pool whose token endpoint is
// tokens, and a model upstream on it.
func (k *keygate) addVertexModel(kind llm.ProviderKind, upstream string, tokens *googleTokens) {
	GinkgoHelper()
	p := providertest.NewServer()
	DeferCleanup(p.Close)
	k.providers[kind] = p
	var prov controlv1.CreateProviderResponse
	k.control("/keygate.control.v1.ProviderService/CreateProvider", &controlv1.CreateProviderRequest{
		Settings: &controlv1.ProviderSettings{Name: "Vertex " + string(kind), ProviderKind: providerKind(kind), BaseUrl: p.URL + vertexLocation,
			Cloud: &controlv1.CloudSettings{Project: "acme-vertex", Region: "us-east5", CredentialSource: controlv1.CredentialSource_CREDENTIAL_SOURCE_KEYS}},
		Keys: []*controlv1.NewProviderKey{{ApiKey: serviceAccountJSON(tokens.URL + "/token")}},
	}, &prov)
	var created controlv1.CreateModelResponse
	k.control("/keygate.control.v1.ModelService/CreateModel", &controlv1.CreateModelRequest{
		Settings: &controlv1.ModelSettings{DisplayName: "Team " + string(kind), ProviderId: prov.GetProvider().GetId(),
			ModelId: upstream, SupportsTools: true},
		Enabled: true,
	}, &created)
	k.models[kind] = created.GetModel().GetId()
}

// callsOf are the call records of kind's model in a conversation, by model
// cycle.
func (k *keygate) callsOf(kind llm.ProviderKind) map[int32]*controlv1.Call {
	GinkgoHelper()
	var calls controlv1.ListCallsResponse
	k.control("/keygate.control.v1.CallService/ListCalls", &controlv1.ListCallsRequest{}, &calls)
	byIndex := map[int32]*controlv1.Call{}
	for _, c := range calls.GetCalls() {
		if c.GetConversationId() != "" && c.GetModel().GetProviderKind() == providerKind(kind) {
			byIndex[c.GetProviderCallIndex()] = c
		}
	}
	return byIndex
}

var _ = Describe("A Cursor turn on Google Vertex AI, with a service-account key", func() {
	It("runs a tool round on an Anthropic model through streamRawPredict: Anthropic's body without its model, a bearer token from the key, cache breakpoints, usage with cache reads", func() {
		k := startKeygate(newWeb(), nil)
		tokens := newGoogleTokens()
		const model = "claude-sonnet-4-5@20250929"
		k.addVertexModel(llm.ProviderVertexAnthropic, model, tokens)
		t := k.turn(llm.ProviderVertexAnthropic, userMessage("conv-vertex-anthropic-1", "What is in a.txt?", nil), nil,
			providertest.Turn{ID: "msg_vrtx_r1", Model: "claude-sonnet-4-5-20250929", Thinking: []string{"I should read ", "the file."}, Signature: "c2lnLXZydHgtMQ==",
				Calls: []providertest.Call{call("toolu_vrtx_01", "Read", `{"path":"a.txt"}`)}, Usage: providertest.Usage{Input: 900, CacheWrite: 2100, Output: 40}},
			providertest.Turn{ID: "msg_vrtx_r2", Model: "claude-sonnet-4-5-20250929", Text: []string{"There is ", "no a.txt."},
				Usage: providertest.Usage{Input: 60, CacheRead: 2996, Output: 5}})

		Expect(t.requests).To(HaveLen(2))
		for _, r := range t.requests {
			Expect(r.Method).To(Equal("POST"))
			Expect(r.Path).To(Equal(vertexLocation + "/publishers/anthropic/models/" + model + ":streamRawPredict"))
			Expect(r.Header.Get("Authorization")).To(Equal("Bearer ya29.agentspec-1"), "one token for both calls")
			Expect(r.Header.Get("X-Api-Key")).To(BeEmpty())
			Expect(r.Header.Get("Anthropic-Version")).To(BeEmpty(), "Vertex takes the version in the body")
		}
		Expect(tokens.count()).To(Equal(1))
		first, second := t.requests[0].Body, t.requests[1].Body
		for _, b := range [][]byte{first, second} {
			var top map[string]json.RawMessage
			Expect(json.Unmarshal(b, &top)).To(Succeed())
			Expect(top).NotTo(HaveKey("model"))
			Expect(string(top["anthropic_version"])).To(Equal(`"vertex-2023-10-16"`))
			Expect(bytes.Count(b, []byte(`"cache_control":{"type":"ephemeral"}`))).To(BeNumerically(">=", 2))
		}
		Expect(string(second)).To(ContainSubstring(`"signature":"c2lnLXZydHgtMQ=="`), "the signed thinking goes back to Vertex")
		Expect(string(second)).To(ContainSubstring(`"tool_use_id":"toolu_vrtx_01"`))
		Expect(t.completed("toolu_vrtx_01").GetReadToolCall()).NotTo(BeNil())
		Expect(strings.Join(t.st.Texts(), "")).To(ContainSubstring("There is no a.txt."))

		byIndex := k.callsOf(llm.ProviderVertexAnthropic)
		Expect(byIndex).To(HaveLen(2))
		Expect(byIndex[0].GetFinishReason()).To(Equal("tool_use"))
		Expect(byIndex[0].GetUsage().GetCacheWriteTokens()).To(BeEquivalentTo(2100))
		u := byIndex[1].GetUsage()
		Expect([]int64{u.GetInputTokens(), u.GetCacheReadTokens(), u.GetOutputTokens()}).To(Equal([]int64{60, 2996, 5}))
		Expect(byIndex[1].GetFinishReason()).To(Equal("stop"))
	})

	It("runs a tool round on Gemini through streamGenerateContent: the thought signature back on its call, each body extending the last byte for byte, usage with reasoning and cache reads", func() {
		k := startKeygate(newWeb(), nil)
		tokens := newGoogleTokens()
		k.addVertexModel(llm.ProviderVertexGemini, "gemini-3-pro-preview", tokens)
		t := k.turn(llm.ProviderVertexGemini, userMessage("conv-vertex-gemini-1", "What is in a.txt?", nil), nil,
			providertest.Turn{ID: "r1", Model: "gemini-3-pro-preview", Thinking: []string{"I should read ", "the file."}, Signature: "c2lnLXItMQ==",
				Calls: []providertest.Call{call("unused", "Read", `{"path":"a.txt"}`)}, Usage: providertest.Usage{Input: 900, Output: 40, Reasoning: 25}},
			providertest.Turn{ID: "r2", Model: "gemini-3-pro-preview", Text: []string{"There is ", "no a.txt."},
				Usage: providertest.Usage{Input: 60, CacheRead: 896, Output: 5}})

		Expect(t.requests).To(HaveLen(2))
		for _, r := range t.requests {
			Expect(r.Path).To(Equal(vertexLocation + "/publishers/google/models/gemini-3-pro-preview:streamGenerateContent"))
			Expect(r.Query).To(Equal("alt=sse"))
			Expect(r.Header.Get("Authorization")).To(Equal("Bearer ya29.agentspec-1"))
			Expect(r.Header.Get("X-Goog-Api-Key")).To(BeEmpty())
		}
		first, second := t.requests[0].Body, t.requests[1].Body
		Expect(bytes.HasPrefix(second, bytes.TrimSuffix(first, []byte("]}")))).To(BeTrue(),
			"the second cycle's body extends the first's byte for byte:\n%s\n%s", first, second)
		Expect(string(second)).To(ContainSubstring(`{"functionCall":{"name":"Read","args":{"path":"a.txt"}},"thoughtSignature":"c2lnLXItMQ=="}`))
		Expect(t.completed("fc_r1_0").GetReadToolCall()).NotTo(BeNil())
		Expect(strings.Join(t.st.Texts(), "")).To(ContainSubstring("There is no a.txt."))

		byIndex := k.callsOf(llm.ProviderVertexGemini)
		Expect(byIndex).To(HaveLen(2))
		Expect(byIndex[0].GetFinishReason()).To(Equal("tool_use"))
		Expect(byIndex[0].GetUsage().GetReasoningTokens()).To(BeEquivalentTo(25))
		u := byIndex[1].GetUsage()
		Expect([]int64{u.GetInputTokens(), u.GetCacheReadTokens(), u.GetOutputTokens()}).To(Equal([]int64{60, 896, 5}))
	})
})
