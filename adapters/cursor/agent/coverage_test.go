package agent_test

import (
	"context"
	"sort"

	"connectrpc.com/connect"
	. "github.com/onsi/ginkgo/v2"
	. "github.com/onsi/gomega"
	"google.golang.org/protobuf/reflect/protoreflect"

	"keygate/adapters/cursor/cursortest"
	"keygate/adapters/provider/providertest"
	agentv1 "keygate/gen/cursor/agent/v1"
)

// oneofFields lists the fields of a oneof of the client's schema, read from
// the generated descriptors, so a client build that adds an action or a
// tool makes the specs below name it.
func oneofFields(m protoreflect.Message, oneof protoreflect.Name) []string {
	fs := m.Descriptor().Oneofs().ByName(oneof).Fields()
	out := make([]string, 0, fs.Len())
	for i := range fs.Len() {
		out = append(out, string(fs.Get(i).Name()))
	}
	sort.Strings(out)
	return out
}

// actionSamples is a conversation action of each kind as the client sends
// it. Every conversation action the schema names is served: opening a
// turn and arriving during a run, none is answered invalid_argument.
var actionSamples = map[string]*agentv1.ConversationAction{
	"user_message_action":    cursortest.UserMessageAction("m1", "hello"),
	"resume_action":          cursortest.ResumeAction(),
	"cancel_action":          {Action: &agentv1.ConversationAction_CancelAction{CancelAction: &agentv1.CancelAction{Reason: "stop"}}},
	"summarize_action":       cursortest.SummarizeAction(),
	"shell_command_action":   cursortest.ShellCommand("echo hi", "x-cov"),
	"start_plan_action":      cursortest.StartPlan("m-plan", "plan it"),
	"execute_plan_action":    {Action: &agentv1.ConversationAction_ExecutePlanAction{ExecutePlanAction: &agentv1.ExecutePlanAction{Plan: &agentv1.ConversationPlan{Plan: "1. do"}}}},
	"cancel_subagent_action": cursortest.CancelSubagent("c_none"),
	"async_ask_question_completion_action": cursortest.AsyncAnswers("c_ask", nil,
		&agentv1.AskQuestionSuccess_Answer{QuestionId: "db", SelectedOptionIds: []string{"pg"}}),
	"background_task_completion_action": cursortest.BackgroundCompletion(&agentv1.BackgroundTaskCompletion{TaskId: "1",
		Kind: agentv1.BackgroundTaskKind_BACKGROUND_TASK_KIND_SHELL, Status: agentv1.BackgroundTaskStatus_BACKGROUND_TASK_STATUS_SUCCESS, Title: "make"}),
	"background_shell_action":          cursortest.BackgroundShell("c_none"),
	"background_subagent_action":       cursortest.BackgroundSubagent("c_none"),
	"subscription_notification_action": cursortest.Notifications("a review arrived"),
	"goal_continuation_action":         cursortest.GoalContinuation(),
	"inject_context_action":            cursortest.Inject("inj-cov", "", "and tests").GetConversationAction(),
}

// unsupportedActions are conversation actions Keygate deliberately answers
// with invalid_argument, each with its reason. There are none.
var unsupportedActions = map[string]string{}

// toolCard is how Keygate serves a tool card the client's schema names:
// the tool a model calls to get it (driven end to end), or why Keygate
// does not offer it.
type toolCard struct {
	tool, args string
	// web: the tool is offered only when Keygate can search and fetch;
	// plan: only in plan mode.
	web, plan bool
	why       string
}

const (
	cloudOnly   = "runs in Cursor's cloud (cloud agents, their VMs, pull requests or Bugbot); a Cursor client does not offer it to a local agent"
	piHarness   = "a tool of another agent harness (\"pi\"); Keygate's agent uses Cursor's standard tools (Read, Shell, StrReplace, Grep, Glob, Ls)"
	cloudSearch = "needs Cursor's cloud index of the codebase or of the user's chats, which a self-hosted backend does not have; Grep and Glob search the workspace"
)

// toolCards covers every card of ToolCall's oneof.
var toolCards = map[string]toolCard{
	"shell_tool_call":              {tool: "Shell", args: `{"command":"echo hi"}`},
	"delete_tool_call":             {tool: "Delete", args: `{"path":"gone.txt"}`},
	"glob_tool_call":               {tool: "Glob", args: `{"glob_pattern":"*.txt"}`},
	"grep_tool_call":               {tool: "Grep", args: `{"pattern":"alpha"}`},
	"read_tool_call":               {tool: "Read", args: `{"path":"a.txt"}`},
	"update_todos_tool_call":       {tool: "TodoWrite", args: `{"merge":false,"todos":[{"id":"1","content":"x","status":"pending"}]}`},
	"edit_tool_call":               {tool: "StrReplace", args: `{"path":"a.txt","old_string":"alpha","new_string":"beta"}`},
	"ls_tool_call":                 {tool: "Ls", args: `{"path":"."}`},
	"read_lints_tool_call":         {tool: "ReadLints", args: `{"paths":["a.txt"]}`},
	"mcp_tool_call":                {tool: "CallMcpTool", args: `{"server":"docs","toolName":"search_docs","arguments":{}}`},
	"create_plan_tool_call":        {tool: "CreatePlan", args: `{"plan":"1. do"}`, plan: true},
	"web_search_tool_call":         {tool: "WebSearch", args: `{"search_term":"keygate"}`, web: true},
	"task_tool_call":               {tool: "Task", args: `{"description":"d","prompt":"p"}`},
	"list_mcp_resources_tool_call": {tool: "ListMcpResources", args: `{}`},
	"read_mcp_resource_tool_call":  {tool: "FetchMcpResource", args: `{"server":"docs","uri":"docs://guide"}`},
	"ask_question_tool_call":       {tool: "AskQuestion", args: `{"questions":[{"id":"q","prompt":"?","options":[{"id":"a","label":"A"}]}]}`},
	"web_fetch_tool_call":          {tool: "WebFetch", args: `{"url":"https://example.test/"}`, web: true},
	"switch_mode_tool_call":        {tool: "SwitchMode", args: `{"target_mode_id":"ask"}`},
	"write_shell_stdin_tool_call":  {tool: "WriteShellStdin", args: `{"shell_id":1,"chars":"x"}`},
	"mcp_auth_tool_call":           {tool: "McpAuth", args: `{"server":"docs"}`},
	"await_tool_call":              {tool: "Await", args: `{"task_id":"9","block_until_ms":10}`},
	"get_mcp_tools_tool_call":      {tool: "GetMcpTools", args: `{}`},

	"read_todos_tool_call":                       {why: "TodoWrite answers with the whole list and the list is in every checkpoint the request carries; a separate read adds nothing"},
	"sem_search_tool_call":                       {why: cloudSearch},
	"search_conversations_tool_call":             {why: cloudSearch},
	"generate_image_tool_call":                   {why: `Keygate's provider port has no images API (it speaks chat completions, responses and messages only), so the tool is not offered; see docs/cursor-protocol.md, "Tools Keygate does not offer"`},
	"fetch_tool_call":                            {why: "WebFetch is served and shows its fetch as web_fetch_tool_call, the card whose arguments match the client's web_fetch_request_query"},
	"truncated_tool_call":                        {why: "not a tool: the client's placeholder for a card too large to keep"},
	"reflect_tool_call":                          {why: "Cursor's own models' self-review step; a model on Keygate reasons in its answer or thinking instead"},
	"communicate_update_tool_call":               {why: "progress reports of Cursor's cloud and multi-agent runs to their parent; Keygate's subagents report through their Task result"},
	"create_goal_tool_call":                      {why: "the user sets goals in Cursor; Keygate continues toward the goal (GoalContinuationAction) but lets no model set or close one"},
	"update_goal_tool_call":                      {why: "the user sets goals in Cursor; Keygate continues toward the goal (GoalContinuationAction) but lets no model set or close one"},
	"apply_agent_diff_tool_call":                 {why: cloudOnly},
	"record_screen_tool_call":                    {why: cloudOnly},
	"computer_use_tool_call":                     {why: cloudOnly},
	"setup_vm_environment_tool_call":             {why: cloudOnly},
	"start_grind_execution_tool_call":            {why: cloudOnly},
	"start_grind_planning_tool_call":             {why: cloudOnly},
	"report_bugfix_results_tool_call":            {why: cloudOnly},
	"ai_attribution_tool_call":                   {why: cloudOnly},
	"pr_management_tool_call":                    {why: cloudOnly},
	"blame_by_file_path_tool_call":               {why: cloudOnly},
	"report_bug_tool_call":                       {why: cloudOnly},
	"set_active_branch_tool_call":                {why: cloudOnly},
	"send_final_summary_tool_call":               {why: cloudOnly},
	"update_pr_code_tour_tool_call":              {why: cloudOnly},
	"replace_env_tool_call":                      {why: cloudOnly},
	"edit_pr_labels_tool_call":                   {why: cloudOnly},
	"record_ci_investigation_findings_tool_call": {why: cloudOnly},
	"send_message_tool_call":                     {why: cloudOnly},
	"fetch_cloud_agent_data_tool_call":           {why: cloudOnly},
	"send_to_user_tool_call":                     {why: cloudOnly},
	"connect_scm_tool_call":                      {why: cloudOnly},
	"pi_read_tool_call":                          {why: piHarness},
	"pi_bash_tool_call":                          {why: piHarness},
	"pi_edit_tool_call":                          {why: piHarness},
	"pi_write_tool_call":                         {why: piHarness},
	"pi_grep_tool_call":                          {why: piHarness},
	"pi_find_tool_call":                          {why: piHarness},
	"pi_ls_tool_call":                            {why: piHarness},
}

// readyWorkspace answers everything a tool may ask of the client.
func readyWorkspace(ws *cursortest.Workspace) {
	ws.Answer = cursortest.Approve
	ws.MCP = func(*agentv1.McpArgs) *agentv1.McpResult { return mcpText("ok") }
	ws.MCPState = []*agentv1.McpStateServer{{ServerName: "Docs", ServerIdentifier: "docs"}}
	ws.MCPResources = []cursortest.MCPResource{{Server: "docs", URI: "docs://guide", Text: "guide"}}
	ws.Subagent = func(context.Context, *agentv1.SubagentArgs) *agentv1.SubagentResult {
		return &agentv1.SubagentResult{Result: &agentv1.SubagentResult_Success{Success: &agentv1.SubagentSuccess{AgentId: "s1", FinalMessage: ptr("done")}}}
	}
}

var _ = Describe("Coverage of the client's schema", func() {
	actions := oneofFields((&agentv1.ConversationAction{}).ProtoReflect(), "action")
	cards := oneofFields((&agentv1.ToolCall{}).ProtoReflect(), "tool")

	It("classifies every conversation action the schema names, and only those", func() {
		var known []string
		for n := range actionSamples {
			known = append(known, n)
		}
		for n, why := range unsupportedActions {
			Expect(why).NotTo(BeEmpty(), n)
			known = append(known, n)
		}
		Expect(known).To(ConsistOf(actions))
	})

	It("classifies every tool card the schema names, and only those: served by a tool or not offered for a reason", func() {
		var known []string
		for n, c := range toolCards {
			Expect(c.tool == "" && c.why == "").To(BeFalse(), "%s is neither served nor explained", n)
			known = append(known, n)
		}
		Expect(known).To(ConsistOf(cards))
	})

	f := useFixture()

	var actionEntries []TableEntry
	for _, n := range actions {
		actionEntries = append(actionEntries, Entry(n, n))
	}
	DescribeTable("serves each conversation action that opens a turn, never answering invalid_argument",
		func(name string) {
			a, ok := actionSamples[name]
			if !ok {
				Skip("deliberately unsupported: " + unsupportedActions[name])
			}
			var state *agentv1.ConversationStateStructure
			if name == "resume_action" {
				// A resume continues a conversation: one that holds a turn.
				f.h.reply(providertest.Turn{ID: "r0", Text: []string{"First."}})
				finished(open(f.c.WithRequestID("req-first"), cursortest.RunRequest("conv-open-"+name, "kg-model", "Start")))
				state = f.c.Checkpoint()
			}
			f.h.reply(providertest.Turn{ID: "r1", Text: []string{"Done."}})
			st := finished(open(f.c, cursortest.Request("conv-open-"+name, "kg-model", a, state)))
			Expect(st.EndError()).To(BeNil(), "%s", name)
			Expect(cursortest.Kinds(st.Content())).To(ContainElement("turn_ended"))
		},
		actionEntries,
	)

	It("answers a resume of a conversation nobody holds anything of with failed_precondition, without a model call", func() {
		st := finished(open(f.c, cursortest.Request("conv-resume-nothing", "kg-model", cursortest.ResumeAction(), nil)))
		Expect(st.EndError().Code()).To(Equal(connect.CodeFailedPrecondition))
		Expect(st.EndError().Message()).To(ContainSubstring("send the message again"))
		Expect(f.h.provider.Requests()).To(BeEmpty())
	})

	DescribeTable("serves each conversation action that arrives while a run works, never answering invalid_argument",
		func(name string) {
			a, ok := actionSamples[name]
			if !ok {
				Skip("deliberately unsupported: " + unsupportedActions[name])
			}
			release := gate(f)
			f.h.reply(providertest.Turn{ID: "r1", Calls: []providertest.Call{call("c_read", "Read", `{"path":"a.txt"}`)}},
				providertest.Turn{ID: "r2", Text: []string{"Done."}}, providertest.Turn{ID: "r3", Text: []string{"Next."}},
				providertest.Turn{ID: "r4", Text: []string{"Last."}})
			st := open(f.c, cursortest.RunRequest("conv-mid-"+name, "kg-model", "Read a"))
			Eventually(f.ws.Execs).Should(HaveLen(1))
			Expect(f.c.Send(ctx(), cursortest.Action(a))).To(Succeed())
			release()
			finished(st)
			if name == "cancel_action" {
				Expect(st.EndError().Code()).To(Equal(connect.CodeCanceled))
				return
			}
			Expect(st.EndError()).To(BeNil(), "%s", name)
		},
		actionEntries,
	)

	var cardEntries []TableEntry
	for _, n := range cards {
		c := toolCards[n]
		label := n + ": not offered"
		if c.tool != "" {
			label = n + ": " + c.tool
		}
		cardEntries = append(cardEntries, Entry(label, n))
	}
	DescribeTable("serves each tool card of the schema through a tool of the model, end to end",
		func(name string) {
			tc, ok := toolCards[name]
			Expect(ok).To(BeTrue(), "the schema names %s; classify it in toolCards", name)
			if tc.tool == "" {
				Expect(tc.why).NotTo(BeEmpty(), "why %s is not offered", name)
				return
			}
			c, h := f.c, f.h
			if tc.web {
				env := h.handler(both(fakeWeb{pages: map[string]string{"https://example.test/": "page"}}), cursortest.FastTimings())
				c = env.Client("req-web")
				c.OnMessage = f.ws.Handle
			}
			readyWorkspace(f.ws)
			h.reply(providertest.Turn{ID: "r1", Calls: []providertest.Call{call("c_tool", tc.tool, tc.args)}},
				providertest.Turn{ID: "r2", Text: []string{"Done."}})
			action := cursortest.UserMessageAction("m1", "Use "+tc.tool)
			if tc.plan {
				action = cursortest.StartPlan("m1", "Plan with "+tc.tool)
			}
			action.RequestContextParts = &agentv1.RequestContextPartReferences{DynamicContext: &agentv1.RequestContext{
				McpMetaToolOptions: &agentv1.McpMetaToolOptions{Enabled: true, McpDescriptors: []*agentv1.McpDescriptor{{
					ServerName: "Docs", ServerIdentifier: "docs", Tools: []*agentv1.McpToolDescriptor{{ToolName: "search_docs"}}}}}}}
			st := finished(open(c, cursortest.Request("conv-card-"+name, "kg-model", action, nil)))
			Expect(st.EndError()).To(BeNil())
			card := completed(st, "c_tool")
			Expect(card).NotTo(BeNil(), "no tool_call_completed for %s", tc.tool)
			field := card.ProtoReflect().Descriptor().Fields().ByName(protoreflect.Name(name))
			Expect(card.ProtoReflect().Has(field)).To(BeTrue(), "%s shows %s", tc.tool, name)
		},
		cardEntries,
	)
})
