package agentspec_test

import (
	"context"
	"encoding/json"
	"strings"
	"time"

	. "github.com/onsi/ginkgo/v2"
	. "github.com/onsi/gomega"

	"keygate/adapters/cursor/cursortest"
	"keygate/adapters/provider/providertest"
	"keygate/domain/llm"
	controlv1 "keygate/gen/keygate/control/v1"
)

// goFile is the file the simulated editor types in: the cursor goes after
// "return " on line 3 (0-indexed).
const goFile = "package main\n\nfunc add(a, b int) int {\n\treturn \n}\n"

var _ = Describe("Cursor Tab on the organisation's own model, through the proxy", func() {
	var (
		k        *keygate
		fim      *providertest.Server
		fimModel string
		ctx      context.Context
	)
	BeforeEach(func() {
		ctx = context.Background()
		k = startKeygate(newWeb(), nil)
		fim = providertest.NewServer()
		DeferCleanup(fim.Close)
		var created controlv1.CreateModelResponse
		k.control("/keygate.control.v1.ModelService/CreateModel", &controlv1.CreateModelRequest{
			Settings: &controlv1.ModelSettings{DisplayName: "Team Codestral", ProviderKind: controlv1.ProviderKind_PROVIDER_KIND_OPENAI_COMPLETIONS,
				BaseUrl: fim.URL, ModelId: "codestral-latest"},
			ApiKey: "sk-agentspec-fim", Enabled: true,
		}, &created)
		fimModel = created.GetModel().GetId()
	})

	chooseTab := func(name string) {
		GinkgoHelper()
		var set controlv1.SetTabModelResponse
		k.control("/keygate.control.v1.SettingService/SetTabModel", &controlv1.SetTabModelRequest{Model: name}, &set)
		Expect(set.GetTabModel().GetProblem()).To(BeEmpty())
	}

	tabCalls := func() []*controlv1.Call {
		GinkgoHelper()
		var calls controlv1.ListCallsResponse
		k.control("/keygate.control.v1.CallService/ListCalls", &controlv1.ListCallsRequest{
			Filter: &controlv1.CallFilter{Kind: controlv1.CallKind_CALL_KIND_TAB}}, &calls)
		return calls.GetCalls()
	}

	DescribeTable("completes the line from a fill-in-the-middle model, as an edit the editor applies, on either codec",
		func(useJSON bool) {
			chooseTab("Team Codestral")
			fim.Enqueue(providertest.Stream(providertest.CompletionsSSE(providertest.Turn{
				Text: []string{"a", " + b"}, Usage: providertest.Usage{Input: 40, Output: 3}})))
			c := cursortest.NewTabClient(cursorAPI, k.cursorHTTP(), "main.go", goFile, useJSON)
			c.MoveTo(3, len("\treturn "))

			cfg, err := c.Config(ctx)
			Expect(err).NotTo(HaveOccurred())
			Expect(cfg.GetIsOn()).To(BeTrue())
			Expect(cfg.GetCppUrl()).To(Equal(cursorAPI), "the client's next StreamCpp comes back through the proxy")

			s, err := c.Suggest(ctx)
			Expect(err).NotTo(HaveOccurred())
			Expect(s.DoneStream).To(BeTrue())
			Expect(c.Accept(ctx, s)).To(Succeed())
			Expect(c.Contents()).To(Equal("package main\n\nfunc add(a, b int) int {\n\treturn a + b\n}\n"))

			By("the provider was asked to fill the gap at the cursor")
			reqs := fim.Requests()
			Expect(reqs).To(HaveLen(1))
			Expect(reqs[0].Path).To(Equal("/v1/completions"))
			var body struct{ Model, Prompt, Suffix string }
			Expect(json.Unmarshal(reqs[0].Body, &body)).To(Succeed())
			Expect(body.Model).To(Equal("codestral-latest"))
			Expect(body.Prompt).To(HaveSuffix("func add(a, b int) int {\n\treturn "))
			Expect(body.Suffix).To(HavePrefix("\n}\n"))

			By("the prediction is a call record of kind tab, with its fate on the dashboard")
			calls := tabCalls()
			Expect(calls).To(HaveLen(1))
			Expect(calls[0].GetRunId()).To(Equal(s.RequestID))
			Expect(calls[0].GetModel().GetModelId()).To(Equal("codestral-latest"))
			Eventually(func() float64 {
				var d controlv1.GetDashboardResponse
				k.control("/keygate.control.v1.DashboardService/GetDashboard", &controlv1.GetDashboardRequest{}, &d)
				return d.GetTab().GetTotals().GetAcceptanceRate()
			}).Should(Equal(1.0))
		},
		Entry("connect+proto", false),
		Entry("connect+json", true),
	)

	It("stops the provider call when the user types on", func() {
		chooseTab(fimModel)
		sse := providertest.CompletionsSSE(providertest.Turn{Text: []string{"a"}})
		first := sse[:strings.Index(string(sse), "\n\n")+2]
		fim.Enqueue(providertest.Reply{Steps: []providertest.Step{{Data: first}, {Stall: true}}})
		DeferCleanup(fim.Release)
		c := cursortest.NewTabClient(cursorAPI, k.cursorHTTP(), "main.go", goFile, false)
		c.MoveTo(3, len("\treturn "))
		s := c.Pause(ctx)
		Eventually(func() int { return len(fim.Requests()) }).Should(Equal(1))
		c.Type("b")
		Eventually(fim.Gone(), 5*time.Second).Should(Receive(), "the provider saw its client leave")
		Eventually(s.Done()).Should(BeClosed())
		Expect(s.DoneStream).To(BeFalse())
	})

	It("predicts an edit with a chat model, turning the rewritten region into line edits", func() {
		chat := k.models[llm.ProviderOpenAIChat]
		chooseTab(chat)
		k.providers[llm.ProviderOpenAIChat].Enqueue(providertest.Stream(providertest.ChatSSE(providertest.Turn{Text: []string{
			"<|region|>\npackage main\n\nfunc add(a, b int) int {\n",
			"\treturn a + b\n}\n<|end_region|>\n",
		}})))
		c := cursortest.NewTabClient(cursorAPI, k.cursorHTTP(), "main.go", goFile, false)
		c.MoveTo(3, len("\treturn "))
		s, err := c.Suggest(ctx)
		Expect(err).NotTo(HaveOccurred())
		Expect(s.Edits).To(HaveLen(1))
		Expect(c.Accept(ctx, s)).To(Succeed())
		Expect(c.Contents()).To(Equal("package main\n\nfunc add(a, b int) int {\n\treturn a + b\n}\n"))
		Expect(tabCalls()).To(HaveLen(1))
		Expect(fim.Requests()).To(BeEmpty())
	})

	It("leaves Tab to Cursor while no Tab model is chosen, and sends the fill-in model nothing", func() {
		c := cursortest.NewTabClient(cursorAPI, k.cursorHTTP(), "main.go", goFile, false)
		c.MoveTo(3, len("\treturn "))
		_, err := c.Suggest(ctx)
		Expect(err).To(HaveOccurred(), "relayed to Cursor, which this machine cannot reach")
		Expect(fim.Requests()).To(BeEmpty())
		Expect(tabCalls()).To(BeEmpty())
	})
})
