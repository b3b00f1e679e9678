package agent_test

import (
	"context"
	"errors"
	"fmt"
	"sync"
	"time"

	. "github.com/onsi/ginkgo/v2"
	. "github.com/onsi/gomega"
	"google.golang.org/protobuf/proto"

	"keygate/adapters/cursor/agent"
	"keygate/adapters/cursor/cursortest"
	"keygate/adapters/provider/providertest"
	agentv1 "keygate/gen/cursor/agent/v1"
	"keygate/ports"
)

// fakeWeb answers searches and fetches from memory.
type fakeWeb struct{ pages map[string]string }

func (w fakeWeb) Search(_ context.Context, term string, _ int) ([]ports.WebResult, error) {
	return []ports.WebResult{{Title: "About " + term, URL: "https://example.test/" + term}}, nil
}

func (w fakeWeb) Fetch(_ context.Context, url string) (ports.WebPage, error) {
	if p, ok := w.pages[url]; ok {
		return ports.WebPage{URL: url, Status: 200, ContentType: "text/html", Text: p}, nil
	}
	return ports.WebPage{}, fmt.Errorf("fetch %s: 404", url)
}

var _ = Describe("Handler with web access", func() {
	It("fetches an approved page on the server and reports a declined search", func() {
		h := newHarness(mainKind)
		web := fakeWeb{pages: map[string]string{"https://example.test/": "Example page text"}}
		env := h.handler(agent.Options{Search: web, Fetch: web}, cursortest.FastTimings())
		ws := cursortest.NewWorkspace(GinkgoT().TempDir())
		ws.Answer = func(q *agentv1.InteractionQuery) *agentv1.InteractionResponse {
			if q.GetWebFetchRequestQuery() != nil {
				return &agentv1.InteractionResponse{Result: &agentv1.InteractionResponse_WebFetchRequestResponse{WebFetchRequestResponse: &agentv1.WebFetchRequestResponse{
					Result: &agentv1.WebFetchRequestResponse_Approved_{Approved: &agentv1.WebFetchRequestResponse_Approved{}}}}}
			}
			return &agentv1.InteractionResponse{Result: &agentv1.InteractionResponse_WebSearchRequestResponse{WebSearchRequestResponse: &agentv1.WebSearchRequestResponse{
				Result: &agentv1.WebSearchRequestResponse_Rejected_{Rejected: &agentv1.WebSearchRequestResponse_Rejected{Reason: "not now"}}}}}
		}
		c := env.Client("req-web")
		c.OnMessage = ws.Handle
		h.reply(
			providertest.Turn{ID: "r1", Calls: []providertest.Call{
				call("c_fetch", "WebFetch", `{"url":"https://example.test/"}`),
				call("c_search", "WebSearch", `{"search_term":"keygate"}`),
			}},
			providertest.Turn{ID: "r2", Text: []string{"Read the page."}},
		)
		st := finished(open(c, cursortest.RunRequest("conv-web", "kg-model", "Look it up")))
		Expect(st.EndError()).To(BeNil())
		Expect(string(h.provider.Requests()[0].Body)).To(ContainSubstring(`"WebFetch"`))
		body := string(h.provider.Requests()[1].Body)
		Expect(body).To(And(ContainSubstring("Example page text"), ContainSubstring("declined the web search")))
		Expect(completed(st, "c_fetch").GetWebFetchToolCall().GetResult().GetSuccess().GetMarkdown()).To(Equal("Example page text"))
		Expect(completed(st, "c_search").GetWebSearchToolCall().GetResult().GetRejected().GetReason()).To(Equal("not now"))
	})

	approve := func(q *agentv1.InteractionQuery) *agentv1.InteractionResponse {
		if q.GetWebFetchRequestQuery() != nil {
			return &agentv1.InteractionResponse{Result: &agentv1.InteractionResponse_WebFetchRequestResponse{WebFetchRequestResponse: &agentv1.WebFetchRequestResponse{
				Result: &agentv1.WebFetchRequestResponse_Approved_{Approved: &agentv1.WebFetchRequestResponse_Approved{}}}}}
		}
		return &agentv1.InteractionResponse{Result: &agentv1.InteractionResponse_WebSearchRequestResponse{WebSearchRequestResponse: &agentv1.WebSearchRequestResponse{
			Result: &agentv1.WebSearchRequestResponse_Approved_{Approved: &agentv1.WebSearchRequestResponse_Approved{}}}}}
	}

	It("searches on the server once approved: the model reads a numbered list, the card shows the references", func() {
		h := newHarness(mainKind)
		web := fakeWeb{}
		env := h.handler(agent.Options{Search: web, Fetch: web}, cursortest.FastTimings())
		ws := cursortest.NewWorkspace(GinkgoT().TempDir())
		ws.Answer = approve
		c := env.Client("req-search")
		c.OnMessage = ws.Handle
		h.reply(
			providertest.Turn{ID: "r1", Calls: []providertest.Call{call("c_search", "WebSearch", `{"search_term":"keygate"}`)}},
			providertest.Turn{ID: "r2", Text: []string{"Found it."}},
		)
		st := finished(open(c, cursortest.RunRequest("conv-search", "kg-model", "Search")))
		Expect(st.EndError()).To(BeNil())
		Expect(cursortest.Kinds(st.Messages())).To(ContainElement("query:web_search_request_query"))
		Expect(string(h.provider.Requests()[1].Body)).To(ContainSubstring(`1. About keygate\n   https://example.test/keygate`))
		refs := completed(st, "c_search").GetWebSearchToolCall().GetResult().GetSuccess().GetReferences()
		Expect(refs).To(HaveLen(1))
		Expect(refs[0].GetUrl()).To(Equal("https://example.test/keygate"))
	})

	DescribeTable("offers each web tool only when the server can run it and the client's request context leaves it on",
		func(o func(web fakeWeb) agent.Options, search, fetch *bool, want []string, notWant []string) {
			h := newHarness(mainKind)
			env := h.handler(o(fakeWeb{}), cursortest.FastTimings())
			h.reply(providertest.Turn{ID: "r1", Text: []string{"ok"}})
			first := cursortest.RunRequest("conv-flags", "kg-model", "hi")
			first.GetRunRequest().GetAction().GetUserMessageAction().RequestContext = &agentv1.RequestContext{
				WebSearchEnabled: search, WebFetchEnabled: fetch}
			st := finished(open(env.Client("req-flags"), first))
			Expect(st.EndError()).To(BeNil())
			body := string(h.provider.Requests()[0].Body)
			for _, name := range want {
				Expect(body).To(ContainSubstring(fmt.Sprintf("%q", name)))
			}
			for _, name := range notWant {
				Expect(body).NotTo(ContainSubstring(fmt.Sprintf("%q", name)))
			}
		},
		Entry("both backends, the client silent: both", both, nil, nil, []string{"WebSearch", "WebFetch"}, nil),
		Entry("both backends, both enabled: both", both, proto.Bool(true), proto.Bool(true), []string{"WebSearch", "WebFetch"}, nil),
		Entry("web search switched off in Cursor", both, proto.Bool(false), proto.Bool(true), []string{"WebFetch"}, []string{"WebSearch"}),
		Entry("web fetch switched off in Cursor", both, proto.Bool(true), proto.Bool(false), []string{"WebSearch"}, []string{"WebFetch"}),
		Entry("no search backend configured: no WebSearch, whatever the client says", fetchOnly, proto.Bool(true), proto.Bool(true), []string{"WebFetch"}, []string{"WebSearch"}),
		Entry("no web access at all", none, proto.Bool(true), proto.Bool(true), nil, []string{"WebSearch", "WebFetch"}),
	)
})

func both(w fakeWeb) agent.Options      { return agent.Options{Search: w, Fetch: w} }
func fetchOnly(w fakeWeb) agent.Options { return agent.Options{Fetch: w} }
func none(fakeWeb) agent.Options        { return agent.Options{} }

// crowdedWeb answers every search and fetch after holding it until three
// run at once or hold passes, and records the most that ran at once: with
// more than two in flight the third's arrival shows it at once.
type crowdedWeb struct {
	mu               sync.Mutex
	running, most, n int
	crowd            chan struct{}
	once             sync.Once
	hold             time.Duration
}

func newCrowdedWeb(hold time.Duration) *crowdedWeb {
	return &crowdedWeb{crowd: make(chan struct{}), hold: hold}
}

func (w *crowdedWeb) enter() {
	w.mu.Lock()
	w.running++
	w.n++
	w.most = max(w.most, w.running)
	if w.running == 3 {
		w.once.Do(func() { close(w.crowd) })
	}
	w.mu.Unlock()
	select {
	case <-w.crowd:
	case <-time.After(w.hold):
	}
	w.mu.Lock()
	w.running--
	w.mu.Unlock()
}

func (w *crowdedWeb) stats() (most, n int) {
	w.mu.Lock()
	defer w.mu.Unlock()
	return w.most, w.n
}

func (w *crowdedWeb) Search(_ context.Context, term string, _ int) ([]ports.WebResult, error) {
	w.enter()
	return []ports.WebResult{{Title: "About " + term, URL: "https://example.test/" + term}}, nil
}

func (w *crowdedWeb) Fetch(_ context.Context, url string) (ports.WebPage, error) {
	w.enter()
	return ports.WebPage{URL: url, Status: 200, ContentType: "text/plain", Text: "page " + url}, nil
}

var _ = Describe("Web requests in flight per user", func() {
	It("runs at most two of a user's searches and fetches at once, however many calls a round makes; the others wait their turn", func() {
		h := newHarness(mainKind)
		web := newCrowdedWeb(200 * time.Millisecond)
		env := h.handler(agent.Options{Search: web, Fetch: web}, cursortest.FastTimings())
		ws := cursortest.NewWorkspace(GinkgoT().TempDir())
		ws.Answer = func(q *agentv1.InteractionQuery) *agentv1.InteractionResponse {
			if q.GetWebFetchRequestQuery() != nil {
				return &agentv1.InteractionResponse{Result: &agentv1.InteractionResponse_WebFetchRequestResponse{WebFetchRequestResponse: &agentv1.WebFetchRequestResponse{
					Result: &agentv1.WebFetchRequestResponse_Approved_{Approved: &agentv1.WebFetchRequestResponse_Approved{}}}}}
			}
			return &agentv1.InteractionResponse{Result: &agentv1.InteractionResponse_WebSearchRequestResponse{WebSearchRequestResponse: &agentv1.WebSearchRequestResponse{
				Result: &agentv1.WebSearchRequestResponse_Approved_{Approved: &agentv1.WebSearchRequestResponse_Approved{}}}}}
		}
		c := env.Client("req-crowd")
		c.OnMessage = ws.Handle
		var calls []providertest.Call
		for i := range 4 {
			calls = append(calls, call(fmt.Sprintf("c_fetch%d", i), "WebFetch", fmt.Sprintf(`{"url":"https://example.test/%d"}`, i)))
		}
		calls = append(calls, call("c_search0", "WebSearch", `{"search_term":"a"}`), call("c_search1", "WebSearch", `{"search_term":"b"}`))
		h.reply(providertest.Turn{ID: "r1", Calls: calls}, providertest.Turn{ID: "r2", Text: []string{"Read them."}})
		st := finished(open(c, cursortest.RunRequest("conv-crowd", "kg-model", "Read six pages")))
		Expect(st.EndError()).To(BeNil())
		most, n := web.stats()
		Expect(n).To(Equal(6), "every call ran")
		Expect(most).To(BeNumerically("<=", agent.DefaultWebPerUser))
		Expect(string(h.provider.Requests()[1].Body)).To(And(ContainSubstring("page https://example.test/3"), ContainSubstring("About b")))
	})

	It("lets a user's request wait for a slot until its turn ends or the wait bound passes, and other users' requests run meanwhile", func(ctx SpecContext) {
		slots := agent.NewWebSlots(2, time.Hour)
		r1, err := slots.Acquire(ctx, "mallory")
		Expect(err).NotTo(HaveOccurred())
		r2, err := slots.Acquire(ctx, "mallory")
		Expect(err).NotTo(HaveOccurred())
		over, end := context.WithCancel(ctx)
		end()
		_, err = slots.Acquire(over, "mallory")
		Expect(err).To(MatchError(context.Canceled), "a third waits while two run, and gives up with its turn")
		other, err := slots.Acquire(ctx, "alice")
		Expect(err).NotTo(HaveOccurred(), "another user has slots of their own")
		other()
		third := make(chan error, 1)
		go func() {
			r3, err := slots.Acquire(ctx, "mallory")
			if err == nil {
				r3()
			}
			third <- err
		}()
		r1()
		Eventually(third).Should(Receive(BeNil()), "a slot released goes to the one waiting")
		r2()
		Expect(slots.Users()).To(BeZero(), "a user without requests leaves nothing behind")

		quick := agent.NewWebSlots(1, time.Nanosecond)
		r, err := quick.Acquire(ctx, "mallory")
		Expect(err).NotTo(HaveOccurred())
		_, err = quick.Acquire(ctx, "mallory")
		Expect(err).To(MatchError(ContainSubstring("at most 1 web fetches and searches of one user run at a time")))
		r()
	})
})

// stuckWeb's fetches hang until their context is done, which they report.
type stuckWeb struct {
	started, cancelled chan struct{}
	once               sync.Once
}

func (w *stuckWeb) Search(context.Context, string, int) ([]ports.WebResult, error) { return nil, nil }

func (w *stuckWeb) Fetch(ctx context.Context, _ string) (ports.WebPage, error) {
	close(w.started)
	select {
	case <-ctx.Done():
		w.once.Do(func() { close(w.cancelled) })
		return ports.WebPage{}, ctx.Err()
	case <-time.After(time.Minute):
		return ports.WebPage{}, errors.New("never cancelled")
	}
}

var _ = Describe("A web request when its turn ends", func() {
	It("is cancelled when the user cancels the turn, so a page's conversion stops with it", func() {
		h := newHarness(mainKind)
		web := &stuckWeb{started: make(chan struct{}), cancelled: make(chan struct{})}
		env := h.handler(agent.Options{Search: web, Fetch: web}, cursortest.FastTimings())
		ws := cursortest.NewWorkspace(GinkgoT().TempDir())
		ws.Answer = func(*agentv1.InteractionQuery) *agentv1.InteractionResponse {
			return &agentv1.InteractionResponse{Result: &agentv1.InteractionResponse_WebFetchRequestResponse{WebFetchRequestResponse: &agentv1.WebFetchRequestResponse{
				Result: &agentv1.WebFetchRequestResponse_Approved_{Approved: &agentv1.WebFetchRequestResponse_Approved{}}}}}
		}
		c := env.Client("req-stuck")
		c.OnMessage = ws.Handle
		h.reply(providertest.Turn{ID: "r1", Calls: []providertest.Call{call("c_fetch", "WebFetch", `{"url":"https://example.test/slow"}`)}})
		st := open(c, cursortest.RunRequest("conv-stuck", "kg-model", "Read it"))
		Eventually(web.started).Should(BeClosed())
		Expect(c.Send(context.Background(), cursortest.Cancel("user pressed stop"))).To(Succeed())
		finished(st)
		Eventually(web.cancelled).Should(BeClosed())
	})
})
