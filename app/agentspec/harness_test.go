package agentspec_test

import (
	"context"
	"io"
	"net/http"
	"net/http/httptest"
	"path/filepath"
	"strings"
	"sync"
	"time"

	. "github.com/onsi/ginkgo/v2"
	. "github.com/onsi/gomega"
	"google.golang.org/protobuf/encoding/protojson"
	"google.golang.org/protobuf/proto"

	"keygate/adapters/cursor/cursortest"
	"keygate/adapters/provider/providertest"
	"keygate/app/apptest"
	"keygate/app/config"
	"keygate/domain/llm"
	agentv1 "keygate/gen/cursor/agent/v1"
	controlv1 "keygate/gen/keygate/control/v1"
)

const cursorAPI = "https://api2.cursor.sh"

// kinds are the provider protocols Keygate speaks.
var kinds = []llm.ProviderKind{llm.ProviderOpenAIChat, llm.ProviderOpenAIResponses, llm.ProviderAnthropic}

// upstreamModel is the model id each protocol's model is configured with:
// families whose picker parameters Keygate knows.
var upstreamModel = map[llm.ProviderKind]string{
	llm.ProviderOpenAIChat:      "gpt-5.5",
	llm.ProviderOpenAIResponses: "gpt-5.5",
	llm.ProviderAnthropic:       "claude-opus-5-5",
}

// keygate is a running Keygate with one model per provider protocol, each
// on a fake provider of its own.
type keygate struct {
	*apptest.Keygate
	providers map[llm.ProviderKind]*providertest.Server
	models    map[llm.ProviderKind]string
}

// web is the fake web around a Keygate: a SearXNG instance, the Brave
// Search API and the public internet behind an outbound HTTP proxy.
type web struct {
	searxng, brave *recorder
	internet       *recorder
	pages          map[string]string
}

// recorder is an HTTP server that records what it was asked.
type recorder struct {
	*httptest.Server
	mu    sync.Mutex
	asked []*http.Request
}

func newRecorder(h http.HandlerFunc) *recorder {
	r := &recorder{}
	r.Server = httptest.NewServer(http.HandlerFunc(func(w http.ResponseWriter, req *http.Request) {
		r.mu.Lock()
		r.asked = append(r.asked, req.Clone(req.Context()))
		r.mu.Unlock()
		h(w, req)
	}))
	DeferCleanup(r.Close)
	return r
}

func (r *recorder) requests() []*http.Request {
	r.mu.Lock()
	defer r.mu.Unlock()
	return append([]*http.Request(nil), r.asked...)
}

// newWeb starts the fake web. The public pages are served by the outbound
// proxy for absolute-form requests, as a proxy-only network's proxy would.
func newWeb() *web {
	w := &web{pages: map[string]string{
		"http://docs.example.test/egress": `<html><head><title>Egress</title><script>x()</script></head><body>
			<nav>Home</nav><h2>Policy</h2><p>Every connection goes through <a href="/policy">the policy</a>.</p></body></html>`,
	}}
	w.searxng = newRecorder(func(rw http.ResponseWriter, r *http.Request) {
		rw.Header().Set("Content-Type", "application/json")
		_, _ = io.WriteString(rw, `{"query":"`+r.URL.Query().Get("q")+`","number_of_results":0,"results":[
			{"url":"http://docs.example.test/egress","title":"Egress policy","content":"How Keygate decides outbound connections.","engine":"duckduckgo","engines":["duckduckgo"],"positions":[1],"score":1.0,"category":"general"}],
			"answers":[],"corrections":[],"infoboxes":[],"suggestions":[],"unresponsive_engines":[]}`)
	})
	w.brave = newRecorder(func(rw http.ResponseWriter, r *http.Request) {
		if r.Header.Get("X-Subscription-Token") != braveKey {
			rw.WriteHeader(http.StatusUnauthorized)
			_, _ = io.WriteString(rw, `{"type":"ErrorResponse","error":{"code":"SUBSCRIPTION_TOKEN_INVALID","detail":"The provided subscription token is invalid."}}`)
			return
		}
		rw.Header().Set("Content-Type", "application/json")
		_, _ = io.WriteString(rw, `{"type":"search","query":{"original":"`+r.URL.Query().Get("q")+`"},"web":{"type":"search","results":[
			{"type":"search_result","title":"Brave: <strong>egress</strong>","url":"https://brave.example.test/egress","description":"Found by <strong>Brave</strong>.","extra_snippets":[]}]}}`)
	})
	w.internet = newRecorder(func(rw http.ResponseWriter, r *http.Request) {
		page, ok := w.pages[r.URL.String()]
		if !ok {
			http.NotFound(rw, r)
			return
		}
		rw.Header().Set("Content-Type", "text/html; charset=utf-8")
		_, _ = io.WriteString(rw, page)
	})
	return w
}

const braveKey = "BSA-agentspec-key-0123456789"

// startKeygate runs the real composition root on a laptop (local sign-in)
// with mutate applied to the configuration; the process environment's
// HTTP_PROXY is the fake web's internet, which Keygate's own outbound
// connections use (provider calls and searches on loopback skip it).
func startKeygate(w *web, mutate func(*config.Config)) *keygate {
	GinkgoT().Setenv("HTTP_PROXY", w.internet.URL)
	GinkgoT().Setenv("HTTPS_PROXY", w.internet.URL)
	GinkgoT().Setenv("NO_PROXY", "")
	cfg := config.Default()
	cfg.DataDir, cfg.Listen, cfg.ProxyListen = filepath.Join(GinkgoT().TempDir(), "data"), "127.0.0.1:0", apptest.FreeAddr()
	cfg.LogFormat, cfg.LogLevel = "json", "error"
	// Cursor's own service sits behind an outbound proxy that refuses every
	// connection, so nothing leaves the machine.
	cfg.OutboundProxy = "http://127.0.0.1:1"
	if mutate != nil {
		mutate(&cfg)
	}
	k := &keygate{Keygate: apptest.Start(cfg),
		providers: map[llm.ProviderKind]*providertest.Server{}, models: map[llm.ProviderKind]string{}}
	for _, kind := range kinds {
		k.addModel(kind, upstreamModel[kind])
	}
	return k
}

// addModel configures a model of kind with upstream model id on a fake
// provider of its own.
func (k *keygate) addModel(kind llm.ProviderKind, upstream string) {
	GinkgoHelper()
	p := providertest.NewServer()
	DeferCleanup(p.Close)
	k.providers[kind] = p
	var created controlv1.CreateModelResponse
	k.control("/keygate.control.v1.ModelService/CreateModel", &controlv1.CreateModelRequest{
		Settings: &controlv1.ModelSettings{DisplayName: "Team " + string(kind), ProviderKind: providerKind(kind),
			BaseUrl: p.URL, ModelId: upstream, SupportsTools: true},
		ApiKey: "sk-agentspec-" + string(kind), Enabled: true,
	}, &created)
	k.models[kind] = created.GetModel().GetId()
}

func providerKind(k llm.ProviderKind) controlv1.ProviderKind {
	return controlv1.ProviderKind(controlv1.ProviderKind_value["PROVIDER_KIND_"+strings.ToUpper(string(k))])
}

// control calls a control procedure with the Connect JSON protocol, as the
// console does on a laptop, and expects 200.
func (k *keygate) control(procedure string, req, resp proto.Message) {
	GinkgoHelper()
	body, err := protojson.Marshal(req)
	Expect(err).NotTo(HaveOccurred())
	r, err := http.Post(k.Base+procedure, "application/json", strings.NewReader(string(body)))
	Expect(err).NotTo(HaveOccurred())
	defer r.Body.Close()
	raw, err := io.ReadAll(r.Body)
	Expect(err).NotTo(HaveOccurred())
	Expect(r.StatusCode).To(Equal(http.StatusOK), "%s: %s", procedure, raw)
	Expect(protojson.Unmarshal(raw, resp)).To(Succeed())
}

// cursorHTTP is how Cursor reaches Keygate on a laptop: http.proxy set to
// its proxy, no credentials, trusting the installation CA.
func (k *keygate) cursorHTTP() *http.Client { return k.CursorHTTP("") }

// turn is one Cursor turn through the proxy on kind's model: the provider
// plays replies (each a model cycle), the user answers interaction queries
// with answer, and the stream is read to its end.
type turn struct {
	st       *cursortest.Stream
	requests []providertest.Request
}

func (k *keygate) turn(kind llm.ProviderKind, first *agentv1.AgentClientMessage, answer func(*agentv1.InteractionQuery) *agentv1.InteractionResponse, replies ...providertest.Turn) turn {
	GinkgoHelper()
	p := k.providers[kind]
	before := len(p.Requests())
	for _, r := range replies {
		p.Enqueue(replyOf(kind, r))
	}
	if first.GetRunRequest().RequestedModel.ModelId == "placeholder" {
		// userMessage's: the turn runs on kind's model; any other id is
		// the one the client pins (a mapped Cursor model, say).
		first.GetRunRequest().RequestedModel.ModelId = k.models[kind]
	}
	ws := cursortest.NewWorkspace(GinkgoT().TempDir())
	ws.Answer = answer
	c := cursortest.NewClient(cursorAPI, k.cursorHTTP(), "req-"+first.GetRunRequest().GetConversationId())
	c.OnMessage = ws.Handle
	st, err := c.Subscribe(context.Background())
	Expect(err).NotTo(HaveOccurred())
	DeferCleanup(st.Close)
	Expect(c.Send(context.Background(), first)).To(Succeed())
	// A turn is over for the client once it ended and its final checkpoint
	// is settled; the stream then lingers for a follow-up, which these
	// specs do not wait for.
	Eventually(func() []string {
		Expect(st.ReadError()).NotTo(HaveOccurred())
		Expect(st.EndError()).To(BeNil())
		ks := cursortest.Kinds(st.Content())
		return ks[max(0, len(ks)-4):]
	}).WithTimeout(20 * time.Second).Should(Equal([]string{"turn_ended", "checkpoint:staged", "checkpoint:settled", "checkpoint:settled"}))
	return turn{st: st, requests: p.Requests()[before:]}
}

// replyOf is t in kind's wire format: AWS's binary event stream for the
// Bedrock protocols, SSE for the others.
func replyOf(kind llm.ProviderKind, t providertest.Turn) providertest.Reply {
	switch kind {
	case llm.ProviderBedrockConverse:
		return providertest.EventStream(providertest.BedrockConverse(t))
	case llm.ProviderBedrockAnthropic:
		return providertest.EventStream(providertest.BedrockAnthropic(t))
	}
	return providertest.Stream(sse(kind, t))
}

func sse(kind llm.ProviderKind, t providertest.Turn) []byte {
	switch kind {
	case llm.ProviderOpenAIChat:
		return providertest.ChatSSE(t)
	case llm.ProviderOpenAIResponses:
		return providertest.ResponsesSSE(t)
	case llm.ProviderGemini, llm.ProviderVertexGemini:
		return providertest.GeminiSSE(t)
	default:
		return providertest.AnthropicSSE(t)
	}
}

// userMessage is an opening run request in conversation conv; its model
// is filled in by turn (the placeholder is replaced by the kind's model).
func userMessage(conv, text string, rc *agentv1.RequestContext) *agentv1.AgentClientMessage {
	m := cursortest.RunRequest(conv, "placeholder", text)
	m.GetRunRequest().GetAction().GetUserMessageAction().RequestContext = rc
	return m
}

// completed is the final card of a tool call.
func (t turn) completed(callID string) *agentv1.ToolCall {
	GinkgoHelper()
	var card *agentv1.ToolCall
	for _, m := range t.st.Content() {
		if c := m.GetInteractionUpdate().GetToolCallCompleted(); c != nil && c.GetCallId() == callID {
			card = c.GetToolCall()
		}
	}
	Expect(card).NotTo(BeNil(), "tool_call_completed for %s", callID)
	return card
}

// kinds of the stream's messages, as cursortest names them.
func (t turn) kinds() []string { return cursortest.Kinds(t.st.Messages()) }

// approve says yes to every web request; decline says no with a reason.
func approve(q *agentv1.InteractionQuery) *agentv1.InteractionResponse {
	if q.GetWebFetchRequestQuery() != nil {
		return &agentv1.InteractionResponse{Result: &agentv1.InteractionResponse_WebFetchRequestResponse{WebFetchRequestResponse: &agentv1.WebFetchRequestResponse{
			Result: &agentv1.WebFetchRequestResponse_Approved_{Approved: &agentv1.WebFetchRequestResponse_Approved{}}}}}
	}
	return &agentv1.InteractionResponse{Result: &agentv1.InteractionResponse_WebSearchRequestResponse{WebSearchRequestResponse: &agentv1.WebSearchRequestResponse{
		Result: &agentv1.WebSearchRequestResponse_Approved_{Approved: &agentv1.WebSearchRequestResponse_Approved{}}}}}
}

func decline(q *agentv1.InteractionQuery) *agentv1.InteractionResponse {
	if q.GetWebFetchRequestQuery() != nil {
		return &agentv1.InteractionResponse{Result: &agentv1.InteractionResponse_WebFetchRequestResponse{WebFetchRequestResponse: &agentv1.WebFetchRequestResponse{
			Result: &agentv1.WebFetchRequestResponse_Rejected_{Rejected: &agentv1.WebFetchRequestResponse_Rejected{Reason: "not that site"}}}}}
	}
	return &agentv1.InteractionResponse{Result: &agentv1.InteractionResponse_WebSearchRequestResponse{WebSearchRequestResponse: &agentv1.WebSearchRequestResponse{
		Result: &agentv1.WebSearchRequestResponse_Rejected_{Rejected: &agentv1.WebSearchRequestResponse_Rejected{Reason: "not now"}}}}}
}

func call(id, name, args string) providertest.Call {
	return providertest.Call{ID: id, Name: name, Arguments: []string{args}}
}
