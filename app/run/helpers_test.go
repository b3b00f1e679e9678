package run_test

import (
	"context"
	"fmt"
	"strings"
	"sync"
	"sync/atomic"
	"time"

	. "github.com/onsi/ginkgo/v2"
	. "github.com/onsi/gomega"
	"go.uber.org/zap"

	"keygate/adapters/provider"
	"keygate/adapters/provider/providertest"
	"keygate/app/run"
	"keygate/app/run/runtest"
	"keygate/domain/callrecord"
	"keygate/domain/conversation"
	"keygate/domain/llm"
	"keygate/domain/projection"
	"keygate/ports"
)

// backend is the store a spec runs against: the in-memory store of
// runtest for the engine's specs (it passes the same store contract suite
// as the SQL stores), SQLite for the smoke specs of sqlite_test.go. reopen
// returns stores over the same data as a restarted process would see them.
type backend struct {
	convs   ports.ConversationStore
	runs    ports.RunStore
	rounds  ports.ToolRoundStore
	anchors ports.ContextAnchorStore
	blobs   ports.BlobStore
	calls   ports.CallRecorder
	record  func(callID string) (callrecord.Record, bool)
	reopen  func() backend
}

// memoryBackend is the in-memory store; it survives an engine restart the
// way a database file does.
func memoryBackend() backend {
	s := runtest.NewStore()
	var b backend
	b = backend{convs: s, runs: s.Runs(), rounds: s.Rounds(), anchors: s, blobs: s.Blobs(), calls: s,
		record: s.CallRecord, reopen: func() backend { return b }}
	return b
}

var runSeq atomic.Uint32

// harness is one engine over a backend, a fake provider server reached
// through the real provider client, and a fake clock.
type harness struct {
	b        backend
	server   *providertest.Server
	provider *runtest.Provider
	clock    *runtest.Clock
	engine   *run.Engine
	limits   run.Limits
	conv     string
	// ctx is the current generation's life; crash ends it.
	ctx    context.Context
	life   *mortal
	cancel context.CancelFunc
	model  run.Model
	prompt projection.Prompt
	// last is the transport of the latest start; waited counts the retry
	// waits advanceRetries let pass in its run. Specs start runs from
	// several goroutines, hence the lock (shared by copies of the harness).
	mu     *sync.Mutex
	last   *runtest.Transport
	waited int
}

func newHarness(open func() backend, limits run.Limits) *harness {
	h := &harness{b: open(), server: providertest.NewServer(), clock: runtest.NewClock(), limits: limits, mu: &sync.Mutex{},
		conv: fmt.Sprintf("conv-%d", runSeq.Add(1))}
	DeferCleanup(func() {
		h.server.Release()
		h.server.Close()
	})
	h.model = run.Model{
		Endpoint: ports.Endpoint{Kind: llm.ProviderOpenAIChat, URL: h.server.URL + "/v1/chat/completions", APIKey: "sk-test"},
		Settings: projection.Settings{Model: "gpt-fake", MaxOutputTokens: 1024},
	}
	h.prompt = projection.Prompt{Instructions: "You are a coding agent.", Tools: []llm.Tool{
		{Name: "Read", Description: "Read a file.", Parameters: []byte(`{"type":"object","properties":{"path":{"type":"string"}}}`)},
		{Name: "Shell", Description: "Run a command.", Parameters: []byte(`{"type":"object","properties":{"command":{"type":"string"}}}`)},
	}}
	h.restart()
	return h
}

// restart builds a fresh engine over the same data, as a new process
// would; the previous engine keeps running unless crash stopped it.
func (h *harness) restart() {
	h.restartWith(provider.New(provider.Options{Recorder: h.b.calls, Now: h.clock.Now}))
}

// restartWith is restart with another model provider.
func (h *harness) restartWith(p ports.ModelProvider) {
	h.b = h.b.reopen()
	h.provider = &runtest.Provider{Next: p}
	h.life = &mortal{convs: h.b.convs, runs: h.b.runs, rounds: h.b.rounds, provider: h.provider}
	h.ctx, h.cancel = context.WithCancel(context.Background())
	DeferCleanup(h.cancel)
	e, err := run.New(run.Options{
		Conversations: mortalConvs{h.life}, Runs: mortalRuns{h.life}, ToolRounds: mortalRounds{h.life},
		Anchors: h.b.anchors, Blobs: h.b.blobs, Provider: mortalProvider{h.life}, Clock: h.clock,
		// The most jitter: each retry waits its whole backoff step.
		Jitter: func() float64 { return 1 },
		Logger: zap.NewNop(), Limits: h.limits,
	})
	Expect(err).NotTo(HaveOccurred())
	h.engine = e
}

// crash kills the current engine: from now on its store and provider
// calls fail and its runs' context is cancelled, so it writes nothing more.
func (h *harness) crash() {
	h.life.dead.Store(true)
	h.cancel()
}

// prepared is a Start run of the harness's conversation with msgs.
func (h *harness) prepared(msgs ...conversation.Message) run.PreparedRun {
	id := conversation.RunID("req", runSeq.Add(1))
	return run.PreparedRun{RunID: id, CursorRequestID: "req", ConversationID: h.conv, Model: h.model,
		Prompt: h.prompt, InitialMessages: msgs, Action: run.Action{Kind: run.ActionStart}}
}

// start starts p with t draining its events.
func (h *harness) start(p run.PreparedRun, t *runtest.Transport) *run.Handle {
	hd, err := h.engine.Start(h.ctx, p)
	Expect(err).NotTo(HaveOccurred())
	t.Drive(hd)
	h.mu.Lock()
	h.last, h.waited = t, 0
	h.mu.Unlock()
	return hd
}

// finish waits for the run's end.
func finish(hd *run.Handle) run.Outcome {
	ctx, cancel := context.WithTimeout(context.Background(), 20*time.Second)
	defer cancel()
	o, err := hd.Wait(ctx)
	Expect(err).NotTo(HaveOccurred(), "the run did not end")
	return o
}

// enqueue scripts chat turns.
func (h *harness) enqueue(turns ...providertest.Turn) {
	for _, t := range turns {
		h.server.Enqueue(providertest.Stream(providertest.ChatSSE(t)))
	}
}

// history returns the head messages of the harness's conversation.
func (h *harness) history() []conversation.Message {
	head, err := h.b.convs.Head(context.Background(), h.conv)
	Expect(err).NotTo(HaveOccurred())
	_, msgs, err := h.b.convs.Load(context.Background(), head.ID())
	Expect(err).NotTo(HaveOccurred())
	return msgs
}

// requestBodies returns the raw bodies the fake provider received.
func (h *harness) requestBodies() [][]byte {
	var out [][]byte
	for _, r := range h.server.Requests() {
		out = append(out, r.Body)
	}
	return out
}

// userText builds a runtime user message.
func userText(event, text string) conversation.Message {
	m, err := conversation.NewMessage(conversation.MessageSpec{
		ID: conversation.RuntimeID(event), Role: llm.RoleUser, Origin: conversation.OriginRuntime,
		RuntimeEventID: event, Parts: []llm.Part{{Kind: llm.PartText, Text: text}},
	})
	Expect(err).NotTo(HaveOccurred())
	return m
}

// ids returns the ids of msgs.
func ids(msgs []conversation.Message) []string {
	out := make([]string, len(msgs))
	for i, m := range msgs {
		out[i] = m.ID()
	}
	return out
}

// texts returns the text of each projected message, for compact assertions.
func texts(msgs []llm.Message) []string {
	out := make([]string, len(msgs))
	for i, m := range msgs {
		switch {
		case m.Assistant != nil:
			var calls []string
			for _, c := range m.Assistant.Calls {
				calls = append(calls, c.Name)
			}
			out[i] = "assistant: " + m.Assistant.Text + strings.Join(calls, ",")
		case m.ToolResult != nil:
			out[i] = "tool: " + m.ToolResult.Content
		default:
			var b strings.Builder
			for _, p := range m.Parts {
				b.WriteString(p.Text)
			}
			out[i] = m.Role.String() + ": " + b.String()
		}
	}
	return out
}

// answer returns an OnEvent hook that answers every tool round with
// content per call.
func answer(content func(c llm.ToolCall) string) func(*run.Handle, run.Event) {
	return func(hd *run.Handle, ev run.Event) {
		if x, ok := ev.(run.ExecuteToolRound); ok {
			for _, c := range x.Calls {
				hd.ToolResult(llm.ToolResult{CallID: c.CallID, Content: content(c)})
			}
		}
	}
}

// eventsOf returns the events of type T.
func eventsOf[T run.Event](evs []run.Event) []T {
	var out []T
	for _, ev := range evs {
		if t, ok := ev.(T); ok {
			out = append(out, t)
		}
	}
	return out
}

func call(id, name string, args ...string) providertest.Call {
	return providertest.Call{ID: id, Name: name, Arguments: args}
}

func text(s string) providertest.Turn {
	return providertest.Turn{Text: providertest.Words(s), Usage: providertest.Usage{Input: 100, Output: 10}}
}

func tools(calls ...providertest.Call) providertest.Turn {
	return providertest.Turn{Calls: calls, Usage: providertest.Usage{Input: 100, Output: 10}}
}
