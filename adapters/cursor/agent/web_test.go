package agent_test

import (
	"context"
	"fmt"

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
