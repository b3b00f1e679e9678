package app_test

import (
	"context"
	"net/http"
	"net/http/httptest"
	"net/netip"
	"net/url"
	"os"
	"path/filepath"
	"strings"
	"time"

	. "github.com/onsi/ginkgo/v2"
	. "github.com/onsi/gomega"
	"go.opentelemetry.io/otel/attribute"
	"go.opentelemetry.io/otel/codes"
	"go.opentelemetry.io/otel/sdk/trace"
	"go.opentelemetry.io/otel/sdk/trace/tracetest"
	"go.uber.org/zap"

	"keygate/adapters/auth"
	"keygate/adapters/cursor/cursortest"
	"keygate/adapters/provider/providertest"
	"keygate/adapters/tracing"
	"keygate/app"
	"keygate/app/config"
	appcontrol "keygate/app/control"
	"keygate/domain/identity"
	"keygate/domain/llm"
)

// tracedStack composes Keygate's Cursor path the way app.Initialize does,
// with the spans going to rec instead of an OTLP collector: the Cursor
// routes, the run engine, the SQLite store and the provider client, with
// one configured model pointing at a fake provider.
func tracedStack(ctx context.Context, rec *tracetest.SpanRecorder, providerURL string) (ts *httptest.Server, modelID string) {
	return newStack(ctx, stackOptions{rec: rec, user: identity.Local}, providerURL)
}

// stackOptions vary the composed stack.
type stackOptions struct {
	rec *tracetest.SpanRecorder
	// budgets names a budget policy file; empty: no limits.
	budgets string
	// user is the caller the proxy would put on every Cursor request.
	user identity.Identity
	// configure, when set, configures more after the stack's own model
	// and returns the model id the stack returns instead.
	configure func(ctx context.Context, uc useCases, modelID string) string
}

// useCases are the console's use cases over the stack's store.
type useCases struct {
	models    *appcontrol.Models
	providers *appcontrol.Providers
	aliases   *appcontrol.Aliases
}

// newStack is tracedStack with options.
func newStack(ctx context.Context, o stackOptions, providerURL string) (ts *httptest.Server, modelID string) {
	dir := app.DataDir(GinkgoT().TempDir())
	log := zap.NewNop()
	cfg := config.Config{DataDir: string(dir), BudgetsFile: o.budgets}
	// A laptop serves the local user; any other user means company sign-in,
	// where the fake provider on loopback must be allow-listed, as an
	// operator allow-lists a self-hosted model.
	authCfg := auth.Config{Mode: auth.ModeLocal}
	if o.user != identity.Local {
		authCfg = auth.Config{Mode: auth.ModeHeader, UserHeader: "X-Forwarded-User",
			TrustedProxies: []netip.Prefix{netip.MustParsePrefix("127.0.0.1/32")}}
		u, err := url.Parse(providerURL)
		Expect(err).NotTo(HaveOccurred())
		cfg.EgressAllow = []string{u.Host}
	}
	store, closeStore, err := app.OpenStore(ctx, cfg, log, dir)
	Expect(err).NotTo(HaveOccurred())
	DeferCleanup(closeStore)
	box, err := app.OpenSecretBox(cfg, dir)
	Expect(err).NotTo(HaveOccurred())
	auditor := app.NewAuditor(store)
	settings, err := app.LoadSettings(ctx, store, auditor)
	Expect(err).NotTo(HaveOccurred())
	m := app.NewMetrics()
	if o.rec == nil {
		o.rec = tracetest.NewSpanRecorder()
	}
	tr := tracing.NewWithProcessor(o.rec, "test")
	gate, err := auth.New(ctx, authCfg, box, log)
	Expect(err).NotTo(HaveOccurred())
	policy, err := app.NewEgress(ctx, cfg, gate, log)
	Expect(err).NotTo(HaveOccurred())
	budgets, stopBudgets, err := app.NewBudgets(ctx, cfg, store, settings, auditor, box, policy, nil, log)
	Expect(err).NotTo(HaveOccurred())
	DeferCleanup(stopBudgets)
	catalog := app.NewCatalog(store, box)
	mp := app.NewModelProvider(app.ModelProviderOptions{Logger: log, Store: store, Settings: settings, Metrics: m,
		Tracing: tr, Budgets: budgets, Egress: policy, Catalog: catalog, Auditor: auditor})
	deps := app.ControlDeps{Store: store, Box: box, Auditor: auditor, Egress: policy}
	models := app.NewModels(deps)
	tenancy := app.NewTenancy(store)
	stores := app.NewCursorStores(store, tenancy, tr)
	engine, stopEngine, err := app.NewEngine(cfg, stores, mp, m, tr, log)
	Expect(err).NotTo(HaveOccurred())
	DeferCleanup(stopEngine)
	fwd, err := app.NewUpstream(cfg, policy, nil, log)
	Expect(err).NotTo(HaveOccurred())
	srv, closeRoutes, err := app.NewCursorServer(app.CursorServerOptions{Engine: engine, Stores: stores, Publishing: app.NewPublishing(store), Catalog: catalog,
		Upstream: fwd, Tracing: tr, Budgets: budgets, Logger: log})
	Expect(err).NotTo(HaveOccurred())
	DeferCleanup(closeRoutes)
	routes := app.NewCursorRoutes(srv)

	mux := http.NewServeMux()
	for p, h := range routes {
		mux.Handle(p, h)
	}
	// The proxy puts the caller on every Cursor request; on a laptop it is
	// the local user.
	ts = httptest.NewServer(http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
		mux.ServeHTTP(w, r.WithContext(identity.NewContext(r.Context(), o.user)))
	}))
	DeferCleanup(ts.Close)
	DeferCleanup(ts.CloseClientConnections)

	created, err := models.Create(ctx, appcontrol.ModelSettings{DisplayName: "Fake GPT", ProviderKind: llm.ProviderOpenAIChat,
		BaseURL: providerURL, ModelID: "fake-gpt", SupportsTools: true}, "sk-test", true)
	Expect(err).NotTo(HaveOccurred())
	if o.configure != nil {
		return ts, o.configure(ctx, useCases{models: models, providers: app.NewProviders(deps), aliases: app.NewAliases(deps)}, created.Config.ID)
	}
	return ts, created.Config.ID
}

// spansOf are the ended spans of one trace, by name.
func spansOf(spans []trace.ReadOnlySpan, root trace.ReadOnlySpan) map[string][]trace.ReadOnlySpan {
	out := map[string][]trace.ReadOnlySpan{}
	for _, s := range spans {
		if s.SpanContext().TraceID() == root.SpanContext().TraceID() {
			out[s.Name()] = append(out[s.Name()], s)
		}
	}
	return out
}

func attr(s trace.ReadOnlySpan, key string) attribute.Value {
	for _, kv := range s.Attributes() {
		if string(kv.Key) == key {
			return kv.Value
		}
	}
	return attribute.Value{}
}

// turns are the ended turn spans, in the order they ended.
func turns(rec *tracetest.SpanRecorder) []trace.ReadOnlySpan {
	var out []trace.ReadOnlySpan
	for _, s := range rec.Ended() {
		if s.Name() == "keygate.turn" {
			out = append(out, s)
		}
	}
	return out
}

var _ = Describe("Tracing of Cursor turns", func() {
	var (
		rec      *tracetest.SpanRecorder
		provider *providertest.Server
		server   *httptest.Server
		modelID  string
	)
	BeforeEach(func(ctx SpecContext) {
		rec = tracetest.NewSpanRecorder()
		provider = providertest.NewServer()
		DeferCleanup(provider.Close)
		server, modelID = tracedStack(ctx, rec, provider.URL)
	})

	// turn sends one turn from the Cursor client simulator, with a
	// workspace that runs the tools the model asks for.
	turn := func(ctx context.Context, requestID, conv, text string) *cursortest.Stream {
		ws := cursortest.NewWorkspace(GinkgoT().TempDir())
		Expect(os.WriteFile(filepath.Join(ws.Root, "notes.txt"), []byte("hello from the workspace\n"), 0o644)).To(Succeed())
		c := cursortest.NewClient(server.URL, server.Client(), requestID)
		c.OnMessage = ws.Handle
		st, err := c.Subscribe(ctx)
		Expect(err).NotTo(HaveOccurred())
		DeferCleanup(st.Close)
		Expect(c.Send(ctx, cursortest.RunRequest(conv, modelID, text))).To(Succeed())
		return st
	}

	It("makes each turn one trace whose root span holds its model calls and tool rounds", func(ctx SpecContext) {
		provider.Enqueue(providertest.Stream(providertest.ChatSSE(providertest.Turn{ID: "r1", Text: []string{"Let me read it."},
			Calls: []providertest.Call{{ID: "call_read", Name: "Read", Arguments: []string{`{"path":"notes.txt"}`}}}})))
		provider.Enqueue(providertest.Stream(providertest.ChatSSE(providertest.Turn{ID: "r2", Text: providertest.Words("It says hello.")})))
		provider.Enqueue(providertest.Stream(providertest.ChatSSE(providertest.Turn{ID: "r3", Text: providertest.Words("Hi.")})))

		By("running a turn with one tool round, then a plain turn")
		st := turn(ctx, "req-trace-1", "conv-trace-1", "What is in notes.txt?")
		Eventually(func() []trace.ReadOnlySpan { return turns(rec) }).WithTimeout(15 * time.Second).Should(HaveLen(1))
		Expect(strings.Join(st.Texts(), "")).To(Equal("Let me read it.It says hello."))
		turn(ctx, "req-trace-2", "conv-trace-2", "Hello")
		Eventually(func() []trace.ReadOnlySpan { return turns(rec) }).WithTimeout(15 * time.Second).Should(HaveLen(2))

		first, second := turns(rec)[0], turns(rec)[1]
		Expect(first.SpanContext().TraceID()).NotTo(Equal(second.SpanContext().TraceID()), "a trace per turn")
		Expect(first.Parent().IsValid()).To(BeFalse(), "the turn is the root")
		Expect(first.Status().Code).NotTo(Equal(codes.Error))
		Expect(attr(first, "keygate.request_id").AsString()).To(Equal("req-trace-1"))
		Expect(attr(first, "keygate.conversation_id").AsString()).To(Equal("conv-trace-1"))
		Expect(attr(first, "keygate.model").AsString()).To(Equal(modelID))

		By("nesting the tool turn's two model calls and its tool round under the turn")
		spans := spansOf(rec.Ended(), first)
		Expect(spans["keygate.turn"]).To(HaveLen(1))
		Expect(spans["keygate.model_call"]).To(HaveLen(2))
		Expect(spans["keygate.tool_round"]).To(HaveLen(1))
		for _, s := range append(spans["keygate.model_call"], spans["keygate.tool_round"]...) {
			Expect(s.Parent().SpanID()).To(Equal(first.SpanContext().SpanID()), s.Name())
		}
		round := spans["keygate.tool_round"][0]
		Expect(attr(round, "keygate.tool_calls").AsInt64()).To(BeEquivalentTo(1))
		Expect(attr(round, "keygate.tool_round.outcome").AsString()).To(Equal("settled"))
		Expect(round.EndTime()).To(BeTemporally("<=", first.EndTime()))

		By("giving the plain turn its own model call and no tool round")
		spans = spansOf(rec.Ended(), second)
		Expect(spans["keygate.model_call"]).To(HaveLen(1))
		Expect(spans["keygate.model_call"][0].Parent().SpanID()).To(Equal(second.SpanContext().SpanID()))
		Expect(spans).NotTo(HaveKey("keygate.tool_round"))

		By("showing where the time before the model call goes: the store's calls (the turn's start in one write) and the routing, children of the turn")
		for _, name := range []string{"keygate.store.conversation.open", "keygate.store.run.claim_turn", "keygate.store.conversation.apply", "keygate.route"} {
			Expect(spans).To(HaveKey(name))
			Expect(spans[name][0].Parent().SpanID()).To(Equal(second.SpanContext().SpanID()), name)
		}
		Expect(spans["keygate.route"][0].StartTime()).To(BeTemporally("<=", spans["keygate.model_call"][0].StartTime()))
	}, SpecTimeout(60*time.Second))
})
