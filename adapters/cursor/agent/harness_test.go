package agent_test

import (
	"context"
	"time"

	. "github.com/onsi/ginkgo/v2"
	. "github.com/onsi/gomega"
	"go.uber.org/zap"

	"keygate/adapters/cursor"
	"keygate/adapters/cursor/agent"
	"keygate/adapters/cursor/cursortest"
	"keygate/adapters/provider"
	"keygate/adapters/provider/providertest"
	"keygate/adapters/relstore"
	"keygate/adapters/sqlite"
	"keygate/app/run"
	"keygate/domain/llm"
	agentv1 "keygate/gen/cursor/agent/v1"
	"keygate/ports"
)

// kinds are the three provider protocols every end-to-end spec runs with.
var kinds = []llm.ProviderKind{llm.ProviderOpenAIChat, llm.ProviderOpenAIResponses, llm.ProviderAnthropic}

// models is a fake resolver: the ids it knows point at the fake provider.
type models struct {
	url  string
	kind llm.ProviderKind
}

func (m models) Endpoint(_ context.Context, id string) (ports.Endpoint, ports.ModelConfig, error) {
	window := map[string]int64{"kg-model": 0, "kg-other": 0, "kg-small": 20000}
	w, ok := window[id]
	if !ok {
		return ports.Endpoint{}, ports.ModelConfig{}, ports.ErrNotFound
	}
	u, err := provider.RequestURL(m.url, false, m.kind)
	if err != nil {
		return ports.Endpoint{}, ports.ModelConfig{}, err
	}
	return ports.Endpoint{Kind: m.kind, URL: u, APIKey: "sk-test"},
		ports.ModelConfig{ID: id, ModelID: "upstream-" + id, DisplayName: "Test " + id, Enabled: true, ProviderKind: m.kind,
			ContextWindowTokens: w}, nil
}

// harness is the whole stack: the Cursor adapter over real HTTP, the run
// layer, the engine, the SQLite store and the fake provider behind the real
// provider client.
type harness struct {
	kind     llm.ProviderKind
	dir      string
	provider *providertest.Server
	stores   ports.Stores
	engine   *run.Engine
	env      *cursortest.Env
	close    func()
}

func newHarness(kind llm.ProviderKind) *harness {
	h := &harness{kind: kind, dir: GinkgoT().TempDir(), provider: providertest.NewServer()}
	DeferCleanup(h.provider.Close)
	h.start()
	DeferCleanup(func() { h.close() })
	return h
}

// start opens the store and serves the stack; restart stops it first, as a
// server process that dies and comes back on the same database.
func (h *harness) start() {
	s, err := openStack(h.dir, h.kind, h.provider.URL)
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
func openStack(dir string, kind llm.ProviderKind, providerURL string) (*stack, error) {
	db, err := sqlite.Open(context.Background(), dir, zap.NewNop())
	if err != nil {
		return nil, err
	}
	s := &stack{stores: relstore.New(db, nil).Stores()}
	s.engine, err = run.New(run.Options{
		Conversations: s.stores.Conversations, Runs: s.stores.Runs, ToolRounds: s.stores.ToolRounds, Blobs: s.stores.Blobs,
		Provider: provider.New(provider.Options{Recorder: s.stores.Calls}),
		Limits:   run.Limits{RetryDelay: 10 * time.Millisecond, MaxRetries: -1},
	})
	if err != nil {
		return nil, err
	}
	handler, err := agent.New(agent.Options{Engine: s.engine, Conversations: s.stores.Conversations, Runs: s.stores.Runs, Blobs: s.stores.Blobs,
		Models: models{url: providerURL, kind: kind}, AckTimeout: 5 * time.Second})
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
