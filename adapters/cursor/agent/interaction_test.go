package agent_test

import (
	"context"

	. "github.com/onsi/ginkgo/v2"
	. "github.com/onsi/gomega"

	"keygate/adapters/cursor/cursortest"
	"keygate/adapters/provider/providertest"
	agentv1 "keygate/gen/cursor/agent/v1"
)

func mcpText(text string) *agentv1.McpResult {
	return &agentv1.McpResult{Result: &agentv1.McpResult_Success{Success: &agentv1.McpSuccess{
		Content: []*agentv1.McpToolResultContentItem{{Content: &agentv1.McpToolResultContentItem_Text{Text: &agentv1.McpTextContent{Text: text}}}}}}}
}

var _ = Describe("Handler serving MCP, questions and subagents", func() {
	f := useFixture()
	var got []*agentv1.McpArgs
	BeforeEach(func() {
		got = nil
		f.ws.MCP = func(a *agentv1.McpArgs) *agentv1.McpResult {
			got = append(got, a)
			return mcpText("sunny, 21 degrees")
		}
	})

	It("lists the client's MCP tools in the request context, never among the tools, and runs a CallMcpTool call of one on the client", func() {
		f.h.reply(
			providertest.Turn{ID: "r1", Calls: []providertest.Call{call("c_mcp", "CallMcpTool", `{"server":"weather","toolName":"lookup","arguments":{"city":"Oslo"}}`)}},
			providertest.Turn{ID: "r2", Text: []string{"It is sunny."}},
		)
		req := cursortest.Request("conv-mcp", "kg-model", cursortest.UserMessageAction("m1", "Weather?"), nil)
		req.GetRunRequest().McpTools = &agentv1.McpTools{McpTools: []*agentv1.McpToolDefinition{{
			Name: "weather_lookup", ProviderIdentifier: "weather", ToolName: "lookup", Description: "Look up the weather",
			InputSchemaJson: ptr(`{"type":"object","properties":{"city":{"type":"string"}}}`)}}}
		st := finished(open(f.c, req))
		Expect(st.EndError()).To(BeNil())
		body := string(f.h.provider.Requests()[0].Body)
		Expect(body).To(ContainSubstring(`<mcp_tool name=\"lookup\">\nLook up the weather`))
		Expect(toolNames(body)).NotTo(ContainElement("weather_lookup"))
		Expect(got).To(HaveLen(1))
		Expect(got[0].GetName()).To(Equal("weather_lookup"))
		Expect(got[0].GetToolName()).To(Equal("lookup"))
		Expect(got[0].GetArgs()["city"].GetStringValue()).To(Equal("Oslo"))
		Expect(string(f.h.provider.Requests()[1].Body)).To(ContainSubstring("sunny, 21 degrees"))
		Expect(completed(st, "c_mcp").GetMcpToolCall().GetResult().GetSuccess()).NotTo(BeNil())
	})

	It("still runs a call of a client's MCP tool by its own name, as older conversations made them", func() {
		f.h.reply(
			providertest.Turn{ID: "r1", Calls: []providertest.Call{call("c_mcp", "weather_lookup", `{"city":"Oslo"}`)}},
			providertest.Turn{ID: "r2", Text: []string{"It is sunny."}},
		)
		req := cursortest.Request("conv-mcp-old", "kg-model", cursortest.UserMessageAction("m1", "Weather?"), nil)
		req.GetRunRequest().McpTools = &agentv1.McpTools{McpTools: []*agentv1.McpToolDefinition{{
			Name: "weather_lookup", ProviderIdentifier: "weather", ToolName: "lookup"}}}
		st := finished(open(f.c, req))
		Expect(st.EndError()).To(BeNil())
		Expect(got).To(HaveLen(1))
		Expect(got[0].GetToolName()).To(Equal("lookup"))
	})

	It("routes CallMcpTool to a server the request context describes and refuses an unknown one", func() {
		f.h.reply(
			providertest.Turn{ID: "r1", Calls: []providertest.Call{
				call("c_meta", "CallMcpTool", `{"server":"wx","toolName":"lookup","arguments":{"city":"Rome"}}`),
				call("c_bad", "CallMcpTool", `{"server":"nope","toolName":"lookup"}`),
			}},
			providertest.Turn{ID: "r2", Text: []string{"Done."}},
		)
		action := cursortest.UserMessageAction("m1", "Weather in Rome?")
		action.GetUserMessageAction().RequestContext = &agentv1.RequestContext{McpMetaToolOptions: &agentv1.McpMetaToolOptions{
			Enabled: true, McpDescriptors: []*agentv1.McpDescriptor{{ServerName: "Weather", ServerIdentifier: "wx",
				Tools: []*agentv1.McpToolDescriptor{{ToolName: "lookup", Description: ptr("Look up the weather")}}}}}}
		st := finished(open(f.c, cursortest.Request("conv-meta", "kg-model", action, nil)))
		Expect(st.EndError()).To(BeNil())
		Expect(got).To(HaveLen(1))
		Expect(got[0].GetName()).To(Equal("wx-lookup"))
		Expect(got[0].GetProviderIdentifier()).To(Equal("Weather"))
		Expect(got[0].GetArgs()["city"].GetStringValue()).To(Equal("Rome"))
		body := string(f.h.provider.Requests()[1].Body)
		Expect(body).To(And(ContainSubstring("sunny, 21 degrees"), ContainSubstring("MCP tool not found")))
	})

	It("asks the user a question and gives the model the answer", func() {
		f.ws.Answer = func(q *agentv1.InteractionQuery) *agentv1.InteractionResponse {
			Expect(q.GetAskQuestionInteractionQuery().GetArgs().GetQuestions()).To(HaveLen(1))
			return &agentv1.InteractionResponse{Result: &agentv1.InteractionResponse_AskQuestionInteractionResponse{
				AskQuestionInteractionResponse: &agentv1.AskQuestionInteractionResponse{Result: &agentv1.AskQuestionResult{
					Result: &agentv1.AskQuestionResult_Success{Success: &agentv1.AskQuestionSuccess{Answers: []*agentv1.AskQuestionSuccess_Answer{
						{QuestionId: "db", SelectedOptionIds: []string{"pg"}}}}}}}}}
		}
		f.h.reply(
			providertest.Turn{ID: "r1", Calls: []providertest.Call{call("c_ask", "AskQuestion",
				`{"title":"Setup","questions":[{"id":"db","prompt":"Which database?","options":[{"id":"pg","label":"Postgres"},{"id":"lite","label":"SQLite"}]}]}`)}},
			providertest.Turn{ID: "r2", Text: []string{"Postgres it is."}},
		)
		st := finished(open(f.c, cursortest.RunRequest("conv-ask", "kg-model", "Set it up")))
		Expect(st.EndError()).To(BeNil())
		ks := cursortest.Kinds(st.Content())
		Expect(ks).To(ContainElement("query:ask_question_interaction_query"))
		Expect(string(f.h.provider.Requests()[1].Body)).To(ContainSubstring("db: pg"))
		Expect(completed(st, "c_ask").GetAskQuestionToolCall().GetResult().GetSuccess()).NotTo(BeNil())
	})

	It("runs a subagent as a child run and gives the parent model its report", func() {
		f.ws.Subagent = func(ctx context.Context, args *agentv1.SubagentArgs) *agentv1.SubagentResult {
			return f.c.RunSubagent(ctx, args, nil)
		}
		f.h.reply(
			providertest.Turn{ID: "r1", Calls: []providertest.Call{call("c_task", "Task",
				`{"description":"explore","prompt":"List the packages"}`)}},
			providertest.Turn{ID: "sub", Text: []string{"There are two packages."}},
			providertest.Turn{ID: "r2", Text: []string{"The subagent found two packages."}},
		)
		st := finished(open(f.c, cursortest.RunRequest("conv-task", "kg-model", "Explore")))
		Expect(st.EndError()).To(BeNil())
		reqs := f.h.provider.Requests()
		Expect(reqs).To(HaveLen(3))
		Expect(string(reqs[1].Body)).To(And(ContainSubstring("List the packages"), ContainSubstring("Mode: subagent")))
		Expect(string(reqs[2].Body)).To(ContainSubstring("There are two packages."))
		Expect(completed(st, "c_task").GetTaskToolCall().GetResult().GetSuccess().GetAgentId()).To(Equal("sub-c_task"))
		run, err := f.h.stores.Runs.LatestForRequest(ctx(), "sub-c_task")
		Expect(err).NotTo(HaveOccurred())
		Expect(run.Kind).To(Equal("subagent"))
		parent, err := f.h.stores.Runs.LatestForRequest(ctx(), "req-1")
		Expect(err).NotTo(HaveOccurred())
		Expect(run.ParentRunID).To(Equal(parent.RunID))
		Expect(run.ParentToolCallID).To(Equal("c_task"))
	})
})

func ptr[T any](v T) *T { return &v }

var _ = Describe("Handler cancelling a subagent", func() {
	f := useFixture()

	It("aborts the Task exec and lets the parent model go on", func() {
		h, c, ws := f.h, f.c, f.ws
		ws.Hold = never
		h.reply(
			providertest.Turn{ID: "r1", Calls: []providertest.Call{call("c_task", "Task", `{"description":"d","prompt":"p"}`)}},
			providertest.Turn{ID: "r2", Text: []string{"Without the subagent."}},
		)
		st := open(c, cursortest.RunRequest("conv-cs", "kg-model", "Delegate"))
		Eventually(ws.Execs).Should(HaveLen(1))
		Expect(c.Send(ctx(), cursortest.Action(&agentv1.ConversationAction{Action: &agentv1.ConversationAction_CancelSubagentAction{
			CancelSubagentAction: &agentv1.CancelSubagentAction{SubagentId: "c_task"}}}))).To(Succeed())
		finished(st)
		Expect(st.EndError()).To(BeNil())
		Expect(ws.Aborted()).To(HaveLen(1))
		Expect(string(h.provider.Requests()[1].Body)).To(ContainSubstring("the user cancelled the subagent"))
	})
})
