package agentspec_test

import (
	"context"
	"encoding/json"
	"strings"

	. "github.com/onsi/ginkgo/v2"
	. "github.com/onsi/gomega"

	"keygate/adapters/cursor/cursortest"
	"keygate/adapters/provider/providertest"
	"keygate/domain/llm"
	controlv1 "keygate/gen/keygate/control/v1"
)

// calcFile is the file the simulated editor edits inline.
const calcFile = "package calc\n\nfunc add(a, b int) int {\n\treturn 0\n}\n"

var _ = Describe("Inline edits, commit messages and branch names on the organisation's own models, through the proxy", func() {
	var (
		k   *keygate
		ctx context.Context
	)
	BeforeEach(func() {
		ctx = context.Background()
		k = startKeygate(newWeb(), nil)
	})

	callsOf := func(kind controlv1.CallKind) []*controlv1.Call {
		GinkgoHelper()
		var calls controlv1.ListCallsResponse
		k.control("/keygate.control.v1.CallService/ListCalls", &controlv1.ListCallsRequest{
			Filter: &controlv1.CallFilter{Kind: kind}}, &calls)
		return calls.GetCalls()
	}
	// userText is the text of the last user message a chat-completions
	// request sent.
	userText := func(r providertest.Request) string {
		GinkgoHelper()
		var body struct {
			Messages []struct {
				Role    string
				Content json.RawMessage
			}
		}
		Expect(json.Unmarshal(r.Body, &body)).To(Succeed())
		return string(body.Messages[len(body.Messages)-1].Content)
	}
	chat := func() *providertest.Server { return k.providers[llm.ProviderOpenAIChat] }

	DescribeTable("applies an inline edit to the selection on the first published model by default, on either codec",
		func(useJSON bool) {
			chat().Enqueue(providertest.Stream(providertest.ChatSSE(providertest.Turn{
				Text: []string{"```go\n\treturn ", "a + b\n```\n"}, Usage: providertest.Usage{Input: 90, Output: 8}})))
			c := cursortest.NewCmdKClient(cursorAPI, k.cursorHTTP(), "calc.go", calcFile, useJSON)
			got, err := c.Edit(ctx, 4, 5, "return the sum")
			Expect(err).NotTo(HaveOccurred())
			Expect(c.Contents()).To(Equal("package calc\n\nfunc add(a, b int) int {\n\treturn a + b\n}\n"))

			By("the model saw the selection, the lines around it and the instruction")
			reqs := chat().Requests()
			Expect(reqs).To(HaveLen(1))
			Expect(userText(reqs[0])).To(And(ContainSubstring(`<selection>\n\treturn 0\n</selection>`),
				ContainSubstring(`func add(a, b int) int {\n</before>`), ContainSubstring("Instruction: return the sum")))

			By("the edit is a call record of kind cmdk under the client's request id")
			calls := callsOf(controlv1.CallKind_CALL_KIND_CMDK)
			Expect(calls).To(HaveLen(1))
			Expect(calls[0].GetRunId()).To(Equal(got.RequestID))
			Expect(calls[0].GetKind()).To(Equal(controlv1.CallKind_CALL_KIND_CMDK))
		},
		Entry("connect+proto", false),
		Entry("connect+json", true),
	)

	It("suggests a terminal command", func() {
		chat().Enqueue(providertest.Stream(providertest.ChatSSE(providertest.Turn{Text: []string{"$ git log --oneline -5"}})))
		cmd, err := cursortest.NewCmdKClient(cursorAPI, k.cursorHTTP(), "", "", false).Terminal(ctx, "show the last five commits", "$ git status\nOn branch main\n")
		Expect(err).NotTo(HaveOccurred())
		Expect(cmd).To(Equal("git log --oneline -5"))
		Expect(userText(chat().Requests()[0])).To(ContainSubstring("On branch main"))
		Expect(callsOf(controlv1.CallKind_CALL_KIND_CMDK)).To(HaveLen(1))
	})

	It("writes a commit message in the repository's style on the user's last Agent model, and names a branch", func() {
		k.turn(llm.ProviderAnthropic, userMessage("conv-commit", "hi", nil), nil, providertest.Turn{ID: "r1", Text: []string{"hello"}})
		claude := k.providers[llm.ProviderAnthropic]
		before := len(claude.Requests())
		claude.Enqueue(providertest.Stream(providertest.AnthropicSSE(providertest.Turn{ID: "r2", Text: []string{"calc: return the sum from add"}})))
		claude.Enqueue(providertest.Stream(providertest.AnthropicSSE(providertest.Turn{ID: "r3", Text: []string{"`Fix/Add Sum`"}})))
		c := cursortest.NewCmdKClient(cursorAPI, k.cursorHTTP(), "", "", true)

		msg, err := c.CommitMessage(ctx, []string{"diff --git a/calc.go b/calc.go\n-\treturn 0\n+\treturn a + b\n"},
			[]string{"calc: add the add function", "docs: say what calc does"})
		Expect(err).NotTo(HaveOccurred())
		Expect(msg).To(Equal("calc: return the sum from add"))
		reqs := claude.Requests()[before:]
		Expect(reqs).To(HaveLen(1))
		Expect(string(reqs[0].Body)).To(And(ContainSubstring(`<commit>\ncalc: add the add function\n</commit>`),
			ContainSubstring(`+\treturn a + b`), ContainSubstring("in the style of the recent messages")))

		name, err := c.BranchName(ctx, "+\treturn a + b", "return the sum")
		Expect(err).NotTo(HaveOccurred())
		Expect(name).To(Equal("fix/add-sum"))

		commits := callsOf(controlv1.CallKind_CALL_KIND_COMMIT)
		Expect(commits).To(HaveLen(2))
		Expect(commits[0].GetModel().GetModelId()).To(Equal("claude-opus-5-5"))
		Expect(chat().Requests()).To(BeEmpty())
	})

	It("serves each feature on the model the administrator chose, and leaves it to Cursor when turned off", func() {
		var set controlv1.SetFeatureModelResponse
		k.control("/keygate.control.v1.SettingService/SetFeatureModel", &controlv1.SetFeatureModelRequest{
			Feature: controlv1.Feature_FEATURE_COMMIT, Model: "Team " + string(llm.ProviderOpenAIResponses)}, &set)
		Expect(set.GetFeatureModel().GetSource()).To(Equal("setting"))
		k.providers[llm.ProviderOpenAIResponses].Enqueue(providertest.Stream(providertest.ResponsesSSE(providertest.Turn{ID: "r1", Text: []string{"calc: fix"}})))
		c := cursortest.NewCmdKClient(cursorAPI, k.cursorHTTP(), "calc.go", calcFile, false)
		msg, err := c.CommitMessage(ctx, []string{"+x"}, nil)
		Expect(err).NotTo(HaveOccurred())
		Expect(msg).To(Equal("calc: fix"))

		k.control("/keygate.control.v1.SettingService/SetFeatureModel", &controlv1.SetFeatureModelRequest{
			Feature: controlv1.Feature_FEATURE_CMDK, Model: ""}, &set)
		var all controlv1.GetFeatureModelsResponse
		k.control("/keygate.control.v1.SettingService/GetFeatureModels", &controlv1.GetFeatureModelsRequest{}, &all)
		Expect(all.GetFeatureModels()).To(HaveLen(3))
		Expect(all.GetFeatureModels()[1].GetDefault()).To(Equal("the first published model"))
		_, err = c.Edit(ctx, 4, 5, "return the sum")
		Expect(err).To(HaveOccurred(), "relayed to Cursor, which this machine cannot reach")
		Expect(chat().Requests()).To(BeEmpty())
		Expect(callsOf(controlv1.CallKind_CALL_KIND_CMDK)).To(BeEmpty())
		Expect(strings.Contains(err.Error(), "not served")).To(BeFalse(), "not answered locally")
	})
})
