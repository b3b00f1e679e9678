package agent_test

import (
	"context"
	"fmt"
	"os"
	"path/filepath"
	"time"

	. "github.com/onsi/ginkgo/v2"
	. "github.com/onsi/gomega"
	"go.uber.org/zap"

	"keygate/adapters/cursor"
	"keygate/adapters/cursor/agent"
	"keygate/adapters/cursor/cursortest"
	"keygate/adapters/cursor/transport"
	"keygate/adapters/provider"
	"keygate/adapters/provider/providertest"
	"keygate/adapters/relstore"
	"keygate/adapters/sqlite"
	"keygate/app/run"
	"keygate/domain/llm"
	agentv1 "keygate/gen/cursor/agent/v1"
	"keygate/ports"
)

// mainKind is the provider protocol the run layer's specs run on: what
// they check does not depend on the protocol. smoke_test.go runs a whole
// turn on every protocol (kinds), and the few specs about one protocol's
// own errors name it.
const mainKind = llm.ProviderOpenAIChat

// kinds are the provider protocols Keygate speaks.
var kinds = []llm.ProviderKind{llm.ProviderOpenAIChat, llm.ProviderOpenAIResponses, llm.ProviderAnthropic}

// models is a fake resolver: the ids it knows point at the fake provider.
type models struct {
	url  string
	kind llm.ProviderKind
}

func (m models) Endpoint(_ context.Context, id string) (ports.Endpoint, ports.ModelConfig, error) {
	window := map[string]int64{"kg-model": 0, "kg-other": 0, "kg-small": 20000, "kg-vision": 0, "kg-twin": 0}
	if id == "kg-tab" { // a Cursor Tab model, as app/control's catalog refuses it
		return ports.Endpoint{}, ports.ModelConfig{}, fmt.Errorf("model kg-tab is a fill-in-the-middle model for Cursor Tab and cannot run an Agent turn; choose a chat model: %w", ports.ErrFillInModel)
	}
	w, ok := window[id]
	if !ok {
		return ports.Endpoint{}, ports.ModelConfig{}, ports.ErrNotFound
	}
	u, err := provider.RequestURL(m.url, false, m.kind)
	if err != nil {
		return ports.Endpoint{}, ports.ModelConfig{}, err
	}
	upstream := "upstream-" + id
	if id == "kg-twin" { // a second Keygate model over kg-model's upstream model
		upstream = "upstream-kg-model"
	}
	return ports.Endpoint{Kind: m.kind, URL: u, APIKey: "sk-test"},
		ports.ModelConfig{ID: id, ModelID: upstream, DisplayName: "Test " + id, Enabled: true, ProviderKind: m.kind,
			ContextWindowTokens: w, SupportsImages: id == "kg-vision"}, nil
}

// harness is the whole stack: the Cursor adapter over real HTTP, the run
// layer, the engine, the SQLite store and the fake provider behind the real
// provider client.
type harness struct {
	kind llm.ProviderKind
	// log receives the engine's and the run layer's logs (none by default).
	log      *zap.Logger
	dir      string
	provider *providertest.Server
	stores   ports.Stores
	engine   *run.Engine
	env      *cursortest.Env
	close    func()
}

func newHarness(kind llm.ProviderKind) *harness { return newLoggedHarness(kind, zap.NewNop()) }

// newLoggedHarness is newHarness with the stack logging to log.
func newLoggedHarness(kind llm.ProviderKind, log *zap.Logger) *harness {
	h := &harness{kind: kind, log: log, dir: GinkgoT().TempDir(), provider: providertest.NewServer()}
	DeferCleanup(h.provider.Close)
	h.start()
	DeferCleanup(func() { h.close() })
	return h
}

// fixture is the usual set-up of a spec: the whole stack on mainKind and
// a client "req-1" whose workspace (a temporary directory holding a.txt,
// "alpha\n") runs its execs.
type fixture struct {
	h  *harness
	c  *cursortest.Client
	ws *cursortest.Workspace
}

// useFixture sets f up afresh before every spec of the container it is
// called in.
func useFixture() *fixture {
	f := &fixture{}
	BeforeEach(func() { *f = newFixture(mainKind) })
	return f
}

// newFixture is the set-up of useFixture on a provider protocol of its own.
func newFixture(kind llm.ProviderKind) fixture {
	f := fixture{h: newHarness(kind), ws: cursortest.NewWorkspace(GinkgoT().TempDir())}
	Expect(os.WriteFile(filepath.Join(f.ws.Root, "a.txt"), []byte("alpha\n"), 0o644)).To(Succeed())
	f.c = f.h.env.Client("req-1")
	f.c.OnMessage = f.ws.Handle
	return f
}

// newHandler is a run handler of its own on the harness's stores and
// engine (o's Engine, Conversations and Models are filled in).
func (h *harness) newHandler(o agent.Options) *agent.Handler {
	o.Engine, o.Conversations, o.Models = h.engine, h.stores.Conversations, models{url: h.provider.URL, kind: h.kind}
	handler, err := agent.New(o)
	Expect(err).NotTo(HaveOccurred())
	return handler
}

// handler serves newHandler(o) over transport timings t.
func (h *harness) handler(o agent.Options, t transport.Config) *cursortest.Env {
	env := cursortest.Serve(h.newHandler(o), cursor.Options{Transport: t})
	DeferCleanup(env.Close)
	return env
}

// start opens the store and serves the stack; restart stops it first, as a
// server process that dies and comes back on the same database.
func (h *harness) start() {
	s, err := openStack(h.dir, h.kind, h.provider.URL, h.log)
	Expect(err).NotTo(HaveOccurred())
	h.stores, h.engine, h.env, h.close = s.stores, s.engine, s.env, s.close
}

// stack is the served system on one database directory.
type stack struct {
	stores ports.Stores
	engine *run.Engine
	env    *cursortest.Env
	close  func()
}

// openStack is shared by specs and benchmarks, so it reports errors
// instead of asserting.
func openStack(dir string, kind llm.ProviderKind, providerURL string, log *zap.Logger) (*stack, error) {
	db, err := sqlite.Open(context.Background(), dir, zap.NewNop())
	if err != nil {
		return nil, err
	}
	s := &stack{stores: relstore.New(db, nil).Stores()}
	s.engine, err = run.New(run.Options{
		Conversations: s.stores.Conversations, Runs: s.stores.Runs, ToolRounds: s.stores.ToolRounds, Blobs: s.stores.Blobs,
		Provider: provider.New(provider.Options{Recorder: s.stores.Calls}),
		Limits:   run.Limits{MaxRetries: -1}, Logger: log,
	})
	if err != nil {
		return nil, err
	}
	handler, err := agent.New(agent.Options{Engine: s.engine, Conversations: s.stores.Conversations, Runs: s.stores.Runs, Blobs: s.stores.Blobs,
		Models: models{url: providerURL, kind: kind}, AckTimeout: 5 * time.Second, Logger: log})
	if err != nil {
		return nil, err
	}
	timings := cursortest.FastTimings()
	timings.OrphanGrace = 5 * time.Second
	timings.Linger = 20 * time.Millisecond
	s.env = cursortest.Serve(handler, cursor.Options{Transport: timings})
	s.close = func() {
		s.env.Close()
		ctx, cancel := context.WithTimeout(context.Background(), 5*time.Second)
		defer cancel()
		_ = s.engine.Shutdown(ctx)
		_ = db.Close()
	}
	return s, nil
}

func (h *harness) restart() {
	h.close()
	h.start()
}

// reply scripts the fake provider's next answers in the harness's protocol.
func (h *harness) reply(turns ...providertest.Turn) {
	for _, t := range turns {
		h.provider.Enqueue(providertest.Stream(sse(h.kind, t)))
	}
}

func sse(kind llm.ProviderKind, t providertest.Turn) []byte {
	switch kind {
	case llm.ProviderOpenAIChat:
		return providertest.ChatSSE(t)
	case llm.ProviderOpenAIResponses:
		return providertest.ResponsesSSE(t)
	default:
		return providertest.AnthropicSSE(t)
	}
}

// open subscribes c's stream and sends the opening message.
func open(c *cursortest.Client, first *agentv1.AgentClientMessage) *cursortest.Stream {
	st, err := c.Subscribe(context.Background())
	Expect(err).NotTo(HaveOccurred())
	DeferCleanup(st.Close)
	Expect(c.Send(context.Background(), first)).To(Succeed())
	return st
}

// finished waits for the end of st's stream.
func finished(st *cursortest.Stream) *cursortest.Stream {
	Eventually(st.Done()).WithTimeout(15 * time.Second).Should(BeClosed())
	Expect(st.ReadError()).NotTo(HaveOccurred())
	return st
}
