package threatspec_test

import (
	"context"
	"fmt"
	"io"
	"net/http"
	"net/http/httptest"
	"strings"
	"sync"
	"time"

	. "github.com/onsi/ginkgo/v2"
	. "github.com/onsi/gomega"

	"keygate/adapters/cursor/cursortest"
	"keygate/adapters/provider/providertest"
	agentv1 "keygate/gen/cursor/agent/v1"
)

// bombSite stands for a public site the attacker controls, behind the
// operator's outbound proxy (HTTP_PROXY): it serves absolute-form requests
// for any path of http://bomb.example.test with a page of lists nested 250
// deep over 200 KB of lines, whose conversion once took 35 s of CPU and
// 300 MB. It records how many requests it held at once: each is held until
// a third arrives while two are held, or hold passes, so more than two in
// flight show at once.
type bombSite struct {
	*httptest.Server
	page                  string
	hold                  time.Duration
	mu                    sync.Mutex
	holding, most, served int
	crowd                 chan struct{}
	once                  sync.Once
}

func newBombSite(hold time.Duration) *bombSite {
	var b strings.Builder
	b.WriteString("<html><head><title>Bomb</title></head><body>")
	for range 250 {
		b.WriteString("<ul><li>")
	}
	for b.Len() < 200<<10 {
		b.WriteString("x<br>")
	}
	s := &bombSite{page: b.String(), hold: hold, crowd: make(chan struct{})}
	s.Server = httptest.NewServer(http.HandlerFunc(s.serve))
	DeferCleanup(s.Close)
	return s
}

func (s *bombSite) serve(w http.ResponseWriter, r *http.Request) {
	if r.URL.Host != "bomb.example.test" {
		http.Error(w, "no route", http.StatusBadGateway)
		return
	}
	s.mu.Lock()
	s.holding++
	s.served++
	s.most = max(s.most, s.holding)
	if s.holding == 3 {
		s.once.Do(func() { close(s.crowd) })
	}
	crowd := s.crowd
	s.mu.Unlock()
	select {
	case <-crowd:
	case <-time.After(s.hold):
	case <-r.Context().Done():
	}
	s.mu.Lock()
	s.holding--
	s.mu.Unlock()
	w.Header().Set("Content-Type", "text/html; charset=utf-8")
	_, _ = io.WriteString(w, s.page)
}

// reset forgets what the site saw.
func (s *bombSite) reset() {
	s.mu.Lock()
	defer s.mu.Unlock()
	s.most, s.served, s.crowd, s.once = 0, 0, make(chan struct{}), sync.Once{}
}

func (s *bombSite) stats() (most, served int) {
	s.mu.Lock()
	defer s.mu.Unlock()
	return s.most, s.served
}

// approveWeb says yes to every web fetch and search, as a user clicking
// through would.
func approveWeb(q *agentv1.InteractionQuery) *agentv1.InteractionResponse {
	if q.GetWebFetchRequestQuery() != nil {
		return &agentv1.InteractionResponse{Result: &agentv1.InteractionResponse_WebFetchRequestResponse{WebFetchRequestResponse: &agentv1.WebFetchRequestResponse{
			Result: &agentv1.WebFetchRequestResponse_Approved_{Approved: &agentv1.WebFetchRequestResponse_Approved{}}}}}
	}
	return &agentv1.InteractionResponse{Result: &agentv1.InteractionResponse_WebSearchRequestResponse{WebSearchRequestResponse: &agentv1.WebSearchRequestResponse{
		Result: &agentv1.WebSearchRequestResponse_Approved_{Approved: &agentv1.WebSearchRequestResponse_Approved{}}}}}
}

var _ = Describe("Threat 14: a member makes WebFetch convert a Markdown bomb, six pages at once", Ordered, func() {
	var (
		k    *stack
		site *bombSite
	)
	BeforeAll(func() {
		site = newBombSite(500 * time.Millisecond)
		GinkgoT().Setenv("HTTP_PROXY", site.URL)
		GinkgoT().Setenv("HTTPS_PROXY", site.URL)
		GinkgoT().Setenv("NO_PROXY", "")
		k = startKeygate()
	})

	// fetches are n WebFetch calls of the bomb site's pages.
	fetches := func(n int) []providertest.Call {
		var calls []providertest.Call
		for i := range n {
			calls = append(calls, providertest.Call{ID: fmt.Sprintf("c_fetch%d", i), Name: "WebFetch",
				Arguments: []string{fmt.Sprintf(`{"url":"http://bomb.example.test/%d"}`, i)}})
		}
		return calls
	}

	// startTurn opens a turn of mallory's through the proxy whose model
	// makes calls, the user approving each; the model answers once it
	// has read the results.
	startTurn := func(ctx context.Context, conv string, calls []providertest.Call) *cursortest.Stream {
		GinkgoHelper()
		k.provider.Enqueue(providertest.Stream(providertest.ChatSSE(providertest.Turn{ID: conv + "-r1", Calls: calls})))
		ws := cursortest.NewWorkspace(GinkgoT().TempDir())
		ws.Answer = approveWeb
		c := cursortest.NewClient(cursorAPI, k.CursorHTTP(k.memberToken), "req-"+conv)
		c.OnMessage = ws.Handle
		st, err := c.Subscribe(ctx)
		Expect(err).NotTo(HaveOccurred())
		DeferCleanup(st.Close)
		Expect(c.Send(ctx, cursortest.RunRequest(conv, k.modelID, "Read these pages"))).To(Succeed())
		return st
	}

	// ended waits for the end of a turn.
	ended := func(ctx context.Context, st *cursortest.Stream) {
		GinkgoHelper()
		Eventually(func() []string {
			Expect(st.ReadError()).NotTo(HaveOccurred())
			Expect(st.EndError()).To(BeNil())
			return cursortest.Kinds(st.Content())
		}).WithContext(ctx).WithTimeout(90 * time.Second).Should(ContainElement("turn_ended"))
	}

	It("converts each page within a bound proportional to it, says it was cut, and runs at most two of the member's fetches at once", func(ctx SpecContext) {
		calls := fetches(6)
		before := len(k.provider.Requests())
		st := startTurn(ctx, "conv-bomb", calls)
		k.provider.Enqueue(providertest.Stream(providertest.ChatSSE(providertest.Turn{ID: "r2", Text: providertest.Words("Read them.")})))
		ended(ctx, st)

		most, served := site.stats()
		Expect(served).To(Equal(6), "every fetch reached the page")
		Expect(most).To(BeNumerically("<=", 2), "at most two of the member's fetches in flight at once")

		cards := map[string]*agentv1.ToolCall{}
		for _, m := range st.Content() {
			if done := m.GetInteractionUpdate().GetToolCallCompleted(); done != nil {
				cards[done.GetCallId()] = done.GetToolCall()
			}
		}
		for _, call := range calls {
			Expect(cards).To(HaveKey(call.ID))
			md := cards[call.ID].GetWebFetchToolCall().GetResult().GetSuccess().GetMarkdown()
			Expect(md).To(HavePrefix("# Bomb\n\n- - - "), "the page's beginning is converted")
			Expect(len(md)).To(BeNumerically("<", 64<<10), "the text is bounded")
			Expect(md).To(HaveSuffix("converting the rest would take more work than Keygate spends on a page of its size; the rest is left out.]"))
		}
		requests := k.provider.Requests()[before:]
		Expect(requests).To(HaveLen(2))
		Expect(string(requests[1].Body)).To(ContainSubstring("Keygate stopped converting the page here"), "the model reads why the page ends there")
	}, SpecTimeout(2*time.Minute))

	It("counts the fetches of the member's turns together: two turns of three run at most two at once", func(ctx SpecContext) {
		site.reset()
		first := startTurn(ctx, "conv-bomb-a", fetches(3))
		// The second turn opens once the first's fetches are running, so
		// the provider's scripted answers reach the turns in order.
		Eventually(func() int { _, served := site.stats(); return served }).WithContext(ctx).Should(BeNumerically(">=", 1))
		second := startTurn(ctx, "conv-bomb-b", fetches(3))
		k.provider.Enqueue(providertest.Stream(providertest.ChatSSE(providertest.Turn{ID: "a-r2", Text: providertest.Words("Read them.")})))
		k.provider.Enqueue(providertest.Stream(providertest.ChatSSE(providertest.Turn{ID: "b-r2", Text: providertest.Words("Read them.")})))
		ended(ctx, first)
		ended(ctx, second)
		most, served := site.stats()
		Expect(served).To(Equal(6))
		Expect(most).To(BeNumerically("<=", 2), "at most two of the member's fetches in flight at once, across turns")
	}, SpecTimeout(2*time.Minute))
})
