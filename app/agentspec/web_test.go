package agentspec_test

import (
	"fmt"
	"strings"

	. "github.com/onsi/ginkgo/v2"
	. "github.com/onsi/gomega"
	"google.golang.org/protobuf/proto"

	"keygate/adapters/provider/providertest"
	"keygate/app/config"
	"keygate/domain/llm"
	agentv1 "keygate/gen/cursor/agent/v1"
	controlv1 "keygate/gen/keygate/control/v1"
)

// perProtocol is one table entry per provider protocol.
func perProtocol(feature string) []TableEntry {
	var out []TableEntry
	for _, k := range kinds {
		out = append(out, Entry(fmt.Sprintf("%s, on %s", feature, k), k))
	}
	return out
}

// setupTools is the console's list of the agent's server-side tools.
func (k *keygate) setupTools() map[string]*controlv1.AgentTool {
	GinkgoHelper()
	var setup controlv1.GetCursorSetupResponse
	k.control("/keygate.control.v1.SetupService/GetCursorSetup", &controlv1.GetCursorSetupRequest{}, &setup)
	out := map[string]*controlv1.AgentTool{}
	for _, t := range setup.GetAgentTools() {
		out[t.GetName()] = t
	}
	return out
}

// offered reports whether a provider request offered the tool name.
func offered(r providertest.Request, name string) bool {
	return strings.Contains(string(r.Body), fmt.Sprintf("%q", name))
}

var _ = Describe("Cursor's web tools, with a SearXNG instance and web fetch on", Ordered, func() {
	var (
		w *web
		k *keygate
	)
	BeforeAll(func() {
		w = newWeb()
		k = startKeygate(w, func(c *config.Config) {
			c.WebSearch, c.WebSearchURL = config.WebSearchSearXNG, w.searxng.URL
		})
	})

	DescribeTable("WebSearch: the user approves, Keygate searches SearXNG, the model reads the results and the card shows the references",
		func(kind llm.ProviderKind) {
			t := k.turn(kind, userMessage("conv-search-"+string(kind), "How does egress work?", nil), approve,
				providertest.Turn{ID: "r1", Calls: []providertest.Call{call("c_search", "WebSearch", `{"search_term":"keygate egress"}`)}},
				providertest.Turn{ID: "r2", Text: []string{"It goes through the policy."}})
			Expect(offered(t.requests[0], "WebSearch")).To(BeTrue())
			Expect(t.kinds()).To(ContainElement("query:web_search_request_query"))
			Expect(string(t.requests[1].Body)).To(And(ContainSubstring("Egress policy"), ContainSubstring("How Keygate decides outbound connections.")))
			refs := t.completed("c_search").GetWebSearchToolCall().GetResult().GetSuccess().GetReferences()
			Expect(refs).To(HaveLen(1))
			Expect(refs[0].GetUrl()).To(Equal("http://docs.example.test/egress"))
			Expect(w.searxng.requests()[len(w.searxng.requests())-1].URL.Query().Get("q")).To(Equal("keygate egress"))
		},
		perProtocol("searches"),
	)

	DescribeTable("WebFetch of a public page: the user approves, Keygate fetches it through the public-only policy, the model reads Markdown",
		func(kind llm.ProviderKind) {
			t := k.turn(kind, userMessage("conv-fetch-"+string(kind), "Read the egress docs", nil), approve,
				providertest.Turn{ID: "r1", Calls: []providertest.Call{call("c_fetch", "WebFetch", `{"url":"http://docs.example.test/egress"}`)}},
				providertest.Turn{ID: "r2", Text: []string{"Read it."}})
			Expect(t.kinds()).To(ContainElement("query:web_fetch_request_query"))
			body := string(t.requests[1].Body)
			Expect(body).To(ContainSubstring(`# Egress`))
			Expect(body).To(ContainSubstring(`[the policy](http://docs.example.test/policy)`))
			Expect(body).NotTo(ContainSubstring("x()"))
			Expect(t.completed("c_fetch").GetWebFetchToolCall().GetResult().GetSuccess().GetMarkdown()).To(HavePrefix("# Egress\n\n## Policy"))
		},
		perProtocol("fetches"),
	)

	It("WebFetch of the cloud metadata address: refused before anything is dialled, the model reads why", func() {
		before := len(w.internet.requests())
		t := k.turn(llm.ProviderAnthropic, userMessage("conv-ssrf", "Read the metadata", nil), approve,
			providertest.Turn{ID: "r1", Calls: []providertest.Call{call("c_fetch", "WebFetch", `{"url":"http://169.254.169.254/latest/meta-data/iam/"}`)}},
			providertest.Turn{ID: "r2", Text: []string{"Refused."}})
		Expect(string(t.requests[1].Body)).To(ContainSubstring("must be a public address"))
		Expect(t.completed("c_fetch").GetWebFetchToolCall().GetResult().GetError().GetError()).To(ContainSubstring("link-local"))
		Expect(w.internet.requests()).To(HaveLen(before), "not even the outbound proxy was asked")
	})

	It("WebFetch the user declines: nothing is fetched, the model reads the user's reason", func() {
		before := len(w.internet.requests())
		t := k.turn(llm.ProviderOpenAIChat, userMessage("conv-decline", "Read it", nil), decline,
			providertest.Turn{ID: "r1", Calls: []providertest.Call{call("c_fetch", "WebFetch", `{"url":"http://docs.example.test/egress"}`)}},
			providertest.Turn{ID: "r2", Text: []string{"Understood."}})
		Expect(string(t.requests[1].Body)).To(ContainSubstring("The user declined fetching the page. not that site"))
		Expect(t.completed("c_fetch").GetWebFetchToolCall().GetResult().GetRejected().GetReason()).To(Equal("not that site"))
		Expect(w.internet.requests()).To(HaveLen(before))
	})

	DescribeTable("Cursor's own web switches: a tool the request context switches off is not offered",
		func(search, fetch bool) {
			t := k.turn(llm.ProviderOpenAIResponses, userMessage(fmt.Sprintf("conv-switch-%t-%t", search, fetch), "hi",
				&agentv1.RequestContext{WebSearchEnabled: proto.Bool(search), WebFetchEnabled: proto.Bool(fetch)}), nil,
				providertest.Turn{ID: "r1", Text: []string{"hello"}})
			Expect(offered(t.requests[0], "WebSearch")).To(Equal(search))
			Expect(offered(t.requests[0], "WebFetch")).To(Equal(fetch))
		},
		Entry("web search off", false, true),
		Entry("web fetch off", true, false),
		Entry("both on", true, true),
	)

	It("the console's Connect Cursor page says both are offered and through what", func() {
		tools := k.setupTools()
		Expect(tools["WebSearch"].GetOffered()).To(BeTrue())
		Expect(tools["WebSearch"].GetDetail()).To(ContainSubstring("SearXNG"))
		Expect(tools["WebSearch"].GetDetail()).NotTo(ContainSubstring(w.searxng.URL), "no URL of the operator's infrastructure")
		Expect(tools["WebFetch"].GetOffered()).To(BeTrue())
	})
})

var _ = Describe("Cursor's web tools, with Brave Search by key and web fetch off", Ordered, func() {
	var (
		w *web
		k *keygate
	)
	BeforeAll(func() {
		w = newWeb()
		k = startKeygate(w, func(c *config.Config) {
			c.WebSearch, c.WebSearchURL, c.WebSearchKey, c.WebFetch = config.WebSearchBrave, w.brave.URL, braveKey, false
		})
	})

	It("WebSearch: Keygate asks Brave Search with the key in its header only, the model reads plain results", func() {
		t := k.turn(llm.ProviderOpenAIChat, userMessage("conv-brave", "Search", nil), approve,
			providertest.Turn{ID: "r1", Calls: []providertest.Call{call("c_search", "WebSearch", `{"search_term":"egress"}`)}},
			providertest.Turn{ID: "r2", Text: []string{"Found."}})
		Expect(string(t.requests[1].Body)).To(And(ContainSubstring("Brave: egress"), ContainSubstring("Found by Brave.")))
		r := w.brave.requests()[0]
		Expect(r.URL.Path).To(Equal("/res/v1/web/search"))
		Expect(r.URL.RawQuery).NotTo(ContainSubstring(braveKey))
		Expect(string(t.requests[1].Body)).NotTo(ContainSubstring(braveKey))
	})

	It("WebFetch switched off: not offered to the model, and the console says so", func() {
		t := k.turn(llm.ProviderAnthropic, userMessage("conv-nofetch", "hi", nil), nil, providertest.Turn{ID: "r1", Text: []string{"hello"}})
		Expect(offered(t.requests[0], "WebFetch")).To(BeFalse())
		Expect(offered(t.requests[0], "WebSearch")).To(BeTrue())
		tools := k.setupTools()
		Expect(tools["WebFetch"].GetOffered()).To(BeFalse())
		Expect(tools["WebFetch"].GetDetail()).To(ContainSubstring(config.EnvWebFetch))
	})
})

var _ = Describe("Cursor's web tools on a Keygate without a search backend", Ordered, func() {
	var k *keygate
	BeforeAll(func() { k = startKeygate(newWeb(), nil) })

	It("WebSearch is not offered, whatever Cursor's switch says, and the console names the settings that offer it", func() {
		t := k.turn(llm.ProviderOpenAIChat, userMessage("conv-nosearch", "hi", &agentv1.RequestContext{WebSearchEnabled: proto.Bool(true)}), nil,
			providertest.Turn{ID: "r1", Text: []string{"hello"}})
		Expect(offered(t.requests[0], "WebSearch")).To(BeFalse())
		Expect(offered(t.requests[0], "WebFetch")).To(BeTrue(), "fetch needs no backend")
		tools := k.setupTools()
		Expect(tools["WebSearch"].GetOffered()).To(BeFalse())
		Expect(tools["WebSearch"].GetDetail()).To(And(ContainSubstring("not configured"), ContainSubstring(config.EnvWebSearch), ContainSubstring(config.EnvWebSearchURL)))
	})
})
