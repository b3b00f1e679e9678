package tools_test

import (
	"encoding/json"
	"errors"
	"sort"
	"time"

	. "github.com/onsi/ginkgo/v2"
	. "github.com/onsi/gomega"
	"google.golang.org/protobuf/reflect/protoreflect"

	"keygate/adapters/cursor/tools"
	"keygate/domain/llm"
	agentv1 "keygate/gen/cursor/agent/v1"
	"keygate/ports"
)

// behaviour is the spec of one registered tool: a call with its arguments,
// the first thing it asks for, the answers it gets, and what the model and
// the client's tool card see at the end.
type behaviour struct {
	args string
	env  func(*tools.Env)
	// first is the kind of the call's first action: "exec:<args field>",
	// "query:<query field>" or "result" for a tool the server runs.
	first string
	// answers drive the started call to its result, one answer per step.
	answers []func(*tools.Call) tools.Action
	// result is a substring of what the model gets; isError its flag.
	result  string
	isError bool
	// card checks the client's tool card once the call is done.
	card func(*agentv1.ToolCall)
}

func onExec(m *agentv1.ExecClientMessage) func(*tools.Call) tools.Action {
	return func(c *tools.Call) tools.Action { return c.OnExec(m) }
}

func onAnswer(r *agentv1.InteractionResponse) func(*tools.Call) tools.Action {
	return func(c *tools.Call) tools.Action { return c.OnInteraction(r) }
}

func onWeb(o tools.WebOutcome) func(*tools.Call) tools.Action {
	return func(c *tools.Call) tools.Action { return c.OnWeb(o) }
}

func shellEvent(ev *agentv1.ShellStream) *agentv1.ExecClientMessage {
	return &agentv1.ExecClientMessage{Message: &agentv1.ExecClientMessage_ShellStream{ShellStream: ev}}
}

func writeOK() *agentv1.ExecClientMessage {
	return &agentv1.ExecClientMessage{Message: &agentv1.ExecClientMessage_WriteResult{WriteResult: &agentv1.WriteResult{
		Result: &agentv1.WriteResult_Success{Success: &agentv1.WriteSuccess{Path: "a.txt"}}}}}
}

func grepFiles(files ...string) *agentv1.ExecClientMessage {
	return &agentv1.ExecClientMessage{Message: &agentv1.ExecClientMessage_GrepResult{GrepResult: &agentv1.GrepResult{
		Result: &agentv1.GrepResult_Success{Success: &agentv1.GrepSuccess{WorkspaceResults: map[string]*agentv1.GrepUnionResult{
			"/ws": {Result: &agentv1.GrepUnionResult_Files{Files: &agentv1.GrepFilesResult{Files: files}}}}}}}}}
}

// behaviours holds the behaviour spec of every registered tool; a spec
// below fails when a registered tool has none.
var behaviours = map[string]behaviour{
	"Read": {
		args: `{"path":"a.txt"}`, first: "exec:read_args",
		answers: []func(*tools.Call) tools.Action{onExec(readOK("line one\n"))},
		result:  "line one",
		card: func(tc *agentv1.ToolCall) {
			Expect(tc.GetReadToolCall().GetResult().GetSuccess().GetContent()).To(Equal("line one\n"))
		},
	},
	"Ls": {
		args: `{"path":"/ws"}`, first: "exec:ls_args",
		answers: []func(*tools.Call) tools.Action{onExec(&agentv1.ExecClientMessage{Message: &agentv1.ExecClientMessage_LsResult{LsResult: &agentv1.LsResult{
			Result: &agentv1.LsResult_Success{Success: &agentv1.LsSuccess{DirectoryTreeRoot: &agentv1.LsDirectoryTreeNode{AbsPath: "/ws",
				ChildrenDirs:  []*agentv1.LsDirectoryTreeNode{{AbsPath: "/ws/pkg"}},
				ChildrenFiles: []*agentv1.LsDirectoryTreeNode_File{{Name: "go.mod"}}}}}}}})},
		result: "/ws/\n  - pkg/\n  - go.mod\n",
		card: func(tc *agentv1.ToolCall) {
			Expect(tc.GetLsToolCall().GetResult().GetSuccess()).NotTo(BeNil())
		},
	},
	"Glob": {
		args: `{"glob_pattern":"**/*.go"}`, first: "exec:grep_args",
		answers: []func(*tools.Call) tools.Action{onExec(grepFiles("pkg/main.go"))},
		result:  "pkg/main.go",
		card: func(tc *agentv1.ToolCall) {
			Expect(tc.GetGlobToolCall().GetResult().GetSuccess().GetFiles()).To(Equal([]string{"pkg/main.go"}))
		},
	},
	"Grep": {
		args: `{"pattern":"needle","output_mode":"files_with_matches"}`, first: "exec:grep_args",
		answers: []func(*tools.Call) tools.Action{onExec(grepFiles("pkg/main.go"))},
		result:  "pkg/main.go\n",
		card: func(tc *agentv1.ToolCall) {
			Expect(tc.GetGrepToolCall().GetResult().GetSuccess()).NotTo(BeNil())
		},
	},
	"ReadLints": {
		args: `{"paths":["a.go"]}`, first: "exec:diagnostics_args",
		answers: []func(*tools.Call) tools.Action{onExec(&agentv1.ExecClientMessage{Message: &agentv1.ExecClientMessage_DiagnosticsResult{
			DiagnosticsResult: &agentv1.DiagnosticsResult{Result: &agentv1.DiagnosticsResult_Success{Success: &agentv1.DiagnosticsSuccess{
				Path: "a.go", Diagnostics: []*agentv1.Diagnostic{{Severity: agentv1.DiagnosticSeverity_DIAGNOSTIC_SEVERITY_ERROR, Message: "unused x",
					Range: &agentv1.Range{Start: &agentv1.Position{Line: 3}}}}}}}}})},
		result: "a.go:3: ERROR: unused x",
		card: func(tc *agentv1.ToolCall) {
			Expect(tc.GetReadLintsToolCall().GetResult().GetSuccess().GetTotalDiagnostics()).To(BeEquivalentTo(1))
		},
	},
	"Write": {
		args: `{"path":"a.txt","contents":"one\ntwo"}`, first: "exec:read_args",
		answers: []func(*tools.Call) tools.Action{onExec(readOK("one\n")), onExec(writeOK())},
		result:  "Wrote 2 lines to a.txt",
		card: func(tc *agentv1.ToolCall) {
			s := tc.GetEditToolCall().GetResult().GetSuccess()
			Expect(s.GetBeforeFullFileContent()).To(Equal("one\n"))
			Expect(s.GetAfterFullFileContent()).To(Equal("one\ntwo"))
			Expect(s.GetDiffString()).To(ContainSubstring("+two"))
		},
	},
	"StrReplace": {
		args: `{"path":"a.txt","old_string":"cat","new_string":"dog"}`, first: "exec:read_args",
		answers: []func(*tools.Call) tools.Action{onExec(readOK("a cat sat")), onExec(writeOK())},
		result:  "Edited a.txt",
		card: func(tc *agentv1.ToolCall) {
			s := tc.GetEditToolCall().GetResult().GetSuccess()
			Expect(s.GetBeforeFullFileContent()).To(Equal("a cat sat"))
			Expect(s.GetAfterFullFileContent()).To(Equal("a dog sat"))
		},
	},
	"Delete": {
		args: `{"path":"old.txt"}`, first: "exec:delete_args",
		answers: []func(*tools.Call) tools.Action{onExec(&agentv1.ExecClientMessage{Message: &agentv1.ExecClientMessage_DeleteResult{DeleteResult: &agentv1.DeleteResult{
			Result: &agentv1.DeleteResult_Success{Success: &agentv1.DeleteSuccess{Path: "old.txt"}}}}})},
		result: "Deleted old.txt",
		card: func(tc *agentv1.ToolCall) {
			Expect(tc.GetDeleteToolCall().GetResult().GetSuccess()).NotTo(BeNil())
		},
	},
	"Shell": {
		args: `{"command":"echo hi"}`, first: "exec:shell_stream_args",
		answers: []func(*tools.Call) tools.Action{
			onExec(shellEvent(&agentv1.ShellStream{Event: &agentv1.ShellStream_Stdout{Stdout: &agentv1.ShellStreamStdout{Data: "hi\n"}}})),
			onExec(shellEvent(&agentv1.ShellStream{Event: &agentv1.ShellStream_Exit{Exit: &agentv1.ShellStreamExit{Code: 0, Cwd: "/ws"}}})),
		},
		result: "Exit code: 0\nStdout:\nhi\n",
		card: func(tc *agentv1.ToolCall) {
			Expect(tc.GetShellToolCall().GetResult().GetSuccess().GetStdout()).To(Equal("hi\n"))
		},
	},
	"TodoWrite": {
		args: `{"merge":false,"todos":[{"id":"1","content":"write code","status":"in_progress"}]}`, first: "result",
		result: "- [in_progress] write code",
		card: func(tc *agentv1.ToolCall) {
			Expect(tc.GetUpdateTodosToolCall().GetResult().GetSuccess().GetTodos()).To(HaveLen(1))
		},
	},
	"AskQuestion": {
		args:  `{"questions":[{"id":"db","prompt":"Which?","options":[{"id":"pg","label":"Postgres"}]}]}`,
		first: "query:ask_question_interaction_query",
		answers: []func(*tools.Call) tools.Action{onAnswer(&agentv1.InteractionResponse{Result: &agentv1.InteractionResponse_AskQuestionInteractionResponse{
			AskQuestionInteractionResponse: &agentv1.AskQuestionInteractionResponse{Result: &agentv1.AskQuestionResult{
				Result: &agentv1.AskQuestionResult_Success{Success: &agentv1.AskQuestionSuccess{Answers: []*agentv1.AskQuestionSuccess_Answer{
					{QuestionId: "db", SelectedOptionIds: []string{"pg"}}}}}}}}})},
		result: "db: pg",
		card: func(tc *agentv1.ToolCall) {
			Expect(tc.GetAskQuestionToolCall().GetResult().GetSuccess()).NotTo(BeNil())
		},
	},
	"SwitchMode": {
		args: `{"target_mode_id":"plan"}`, first: "query:switch_mode_request_query",
		answers: []func(*tools.Call) tools.Action{onAnswer(&agentv1.InteractionResponse{Result: &agentv1.InteractionResponse_SwitchModeRequestResponse{
			SwitchModeRequestResponse: &agentv1.SwitchModeRequestResponse{Result: &agentv1.SwitchModeRequestResponse_Rejected_{
				Rejected: &agentv1.SwitchModeRequestResponse_Rejected{Reason: "stay"}}}}})},
		result: "The user declined the mode switch. stay",
		card: func(tc *agentv1.ToolCall) {
			Expect(tc.GetSwitchModeToolCall().GetResult().GetRejected().GetReason()).To(Equal("stay"))
		},
	},
	"CreatePlan": {
		args: `{"plan":"1. do it"}`, first: "query:create_plan_request_query",
		answers: []func(*tools.Call) tools.Action{onAnswer(&agentv1.InteractionResponse{Result: &agentv1.InteractionResponse_CreatePlanRequestResponse{
			CreatePlanRequestResponse: &agentv1.CreatePlanRequestResponse{Result: &agentv1.CreatePlanResult{
				Result: &agentv1.CreatePlanResult_Success{Success: &agentv1.CreatePlanSuccess{}}}}}})},
		result: "The user received the plan.",
		card: func(tc *agentv1.ToolCall) {
			Expect(tc.GetCreatePlanToolCall().GetResult().GetSuccess()).NotTo(BeNil())
		},
	},
	"Task": {
		args: `{"description":"d","prompt":"List the packages"}`, first: "exec:subagent_args",
		answers: []func(*tools.Call) tools.Action{onExec(&agentv1.ExecClientMessage{Message: &agentv1.ExecClientMessage_SubagentResult{SubagentResult: &agentv1.SubagentResult{
			Result: &agentv1.SubagentResult_Success{Success: &agentv1.SubagentSuccess{AgentId: "sub-1", FinalMessage: ptr("Two packages.")}}}}})},
		result: "Subagent ID: sub-1\n\nTwo packages.",
		card: func(tc *agentv1.ToolCall) {
			Expect(tc.GetTaskToolCall().GetResult().GetSuccess().GetAgentId()).To(Equal("sub-1"))
		},
	},
	"CallMcpTool": {
		args: `{"server":"wx","toolName":"lookup","arguments":{"city":"Rome"}}`, first: "exec:mcp_args",
		env: func(e *tools.Env) {
			e.Servers = []*agentv1.McpDescriptor{{ServerName: "Weather", ServerIdentifier: "wx", Tools: []*agentv1.McpToolDescriptor{{ToolName: "lookup"}}}}
		},
		answers: []func(*tools.Call) tools.Action{onExec(&agentv1.ExecClientMessage{Message: &agentv1.ExecClientMessage_McpResult{McpResult: &agentv1.McpResult{
			Result: &agentv1.McpResult_Success{Success: &agentv1.McpSuccess{Content: []*agentv1.McpToolResultContentItem{{
				Content: &agentv1.McpToolResultContentItem_Text{Text: &agentv1.McpTextContent{Text: "sunny"}}}}}}}}})},
		result: "sunny",
		card: func(tc *agentv1.ToolCall) {
			Expect(tc.GetMcpToolCall().GetArgs().GetName()).To(Equal("wx-lookup"))
			Expect(tc.GetMcpToolCall().GetResult().GetSuccess()).NotTo(BeNil())
		},
	},
	"WebSearch": {
		args: `{"search_term":"keygate"}`, first: "query:web_search_request_query",
		answers: []func(*tools.Call) tools.Action{
			onAnswer(&agentv1.InteractionResponse{Result: &agentv1.InteractionResponse_WebSearchRequestResponse{WebSearchRequestResponse: &agentv1.WebSearchRequestResponse{
				Result: &agentv1.WebSearchRequestResponse_Approved_{Approved: &agentv1.WebSearchRequestResponse_Approved{}}}}}),
			onWeb(tools.WebOutcome{Results: []ports.WebResult{
				{Title: "Keygate", URL: "https://keygate.example/", Snippet: "A gateway."},
				{Title: "Docs", URL: "https://keygate.example/docs"}}}),
		},
		result: "Web results for \"keygate\":\n\n1. Keygate\n   https://keygate.example/\n   A gateway.\n\n2. Docs\n   https://keygate.example/docs\n",
		card: func(tc *agentv1.ToolCall) {
			refs := tc.GetWebSearchToolCall().GetResult().GetSuccess().GetReferences()
			Expect(refs).To(HaveLen(2))
			Expect(refs[0].GetTitle()).To(Equal("Keygate"))
			Expect(refs[0].GetUrl()).To(Equal("https://keygate.example/"))
			Expect(refs[0].GetChunk()).To(Equal("A gateway."))
		},
	},
	"WebFetch": {
		args: `{"url":"https://example.test/"}`, first: "query:web_fetch_request_query",
		answers: []func(*tools.Call) tools.Action{
			onAnswer(&agentv1.InteractionResponse{Result: &agentv1.InteractionResponse_WebFetchRequestResponse{WebFetchRequestResponse: &agentv1.WebFetchRequestResponse{
				Result: &agentv1.WebFetchRequestResponse_Approved_{Approved: &agentv1.WebFetchRequestResponse_Approved{}}}}}),
			onWeb(tools.WebOutcome{Err: errors.New("fetch https://example.test/: HTTP 404 Not Found")}),
		},
		result: "404", isError: true,
		card: func(tc *agentv1.ToolCall) {
			Expect(tc.GetWebFetchToolCall().GetArgs().GetUrl()).To(Equal("https://example.test/"))
			Expect(tc.GetWebFetchToolCall().GetResult().GetError().GetError()).To(ContainSubstring("404"))
		},
	},
	"FetchRules": {
		args: `{"rule_names":["db"]}`, first: "result",
		env: func(e *tools.Env) {
			e.Rules = []*agentv1.CursorRule{{FullPath: "/ws/.cursor/rules/db.mdc", Content: "Use migrations.",
				Type: &agentv1.CursorRuleType{Type: &agentv1.CursorRuleType_AgentFetched{AgentFetched: &agentv1.CursorRuleTypeAgentFetched{Description: "db"}}}}}
		},
		result: "Use migrations.",
		card: func(tc *agentv1.ToolCall) {
			Expect(tc.GetReadToolCall().GetResult().GetSuccess().GetRelatedCursorRulePaths()).To(Equal([]string{"/ws/.cursor/rules/db.mdc"}))
		},
	},
	"EditNotebook": {
		args: `{"target_notebook":"a.ipynb","cell_idx":0,"old_string":"print(1)","new_string":"print(2)"}`, first: "exec:read_args",
		answers: []func(*tools.Call) tools.Action{onExec(readOK(`{"cells":[{"cell_type":"code","metadata":{},"source":["print(1)\n"],"outputs":[],"execution_count":null}],"metadata":{},"nbformat":4,"nbformat_minor":5}`)),
			onExec(writeOK())},
		result: "Edited cell 0 of a.ipynb.",
		card: func(tc *agentv1.ToolCall) {
			Expect(tc.GetEditToolCall().GetResult().GetSuccess().GetAfterFullFileContent()).To(ContainSubstring(`"print(2)\n"`))
		},
	},
	"BackgroundShell": {
		args: `{"command":"npm run dev"}`, first: "exec:background_shell_spawn_args",
		env: func(e *tools.Env) { e.TerminalsFolder = "/t" },
		answers: []func(*tools.Call) tools.Action{onExec(&agentv1.ExecClientMessage{Message: &agentv1.ExecClientMessage_BackgroundShellSpawnResult{
			BackgroundShellSpawnResult: &agentv1.BackgroundShellSpawnResult{Result: &agentv1.BackgroundShellSpawnResult_Success{Success: &agentv1.BackgroundShellSpawnSuccess{
				ShellId: 7, Command: "npm run dev", Pid: ptr(uint32(4242))}}}}})},
		result: "runs in the background as shell 7. Its output goes to /t/7.txt",
		card: func(tc *agentv1.ToolCall) {
			Expect(tc.GetShellToolCall().GetResult().GetIsBackground()).To(BeTrue())
			Expect(tc.GetShellToolCall().GetResult().GetSuccess().GetShellId()).To(BeEquivalentTo(7))
		},
	},
	"WriteShellStdin": {
		args: `{"shell_id":7,"chars":"y\n"}`, first: "exec:write_shell_stdin_args",
		answers: []func(*tools.Call) tools.Action{onExec(&agentv1.ExecClientMessage{Message: &agentv1.ExecClientMessage_WriteShellStdinResult{
			WriteShellStdinResult: &agentv1.WriteShellStdinResult{Result: &agentv1.WriteShellStdinResult_Success{Success: &agentv1.WriteShellStdinSuccess{ShellId: 7}}}}})},
		result: "Wrote 2 characters to shell 7.",
		card: func(tc *agentv1.ToolCall) {
			Expect(tc.GetWriteShellStdinToolCall().GetResult().GetSuccess().GetShellId()).To(BeEquivalentTo(7))
		},
	},
	"Await": {
		args: `{"task_id":"7","block_until_ms":1000}`, first: "await",
		answers: []func(*tools.Call) tools.Action{func(c *tools.Call) tools.Action {
			return c.OnTask(&agentv1.BackgroundTaskCompletion{TaskId: "7", Status: agentv1.BackgroundTaskStatus_BACKGROUND_TASK_STATUS_SUCCESS,
				Detail: ptr("ready on :3000"), OutputPath: ptr("/t/7.txt")})
		}},
		result: "Task 7 finished (success). Its output is in /t/7.txt.\n\nready on :3000",
		card: func(tc *agentv1.ToolCall) {
			Expect(tc.GetAwaitToolCall().GetResult().GetSuccess().GetComplete().GetTaskId()).To(Equal("7"))
		},
	},
	"GetMcpTools": {
		args: `{"server":"linear"}`, first: "exec:mcp_state_exec_args",
		answers: []func(*tools.Call) tools.Action{onExec(&agentv1.ExecClientMessage{Message: &agentv1.ExecClientMessage_McpStateExecResult{
			McpStateExecResult: &agentv1.McpStateExecResult{Result: &agentv1.McpStateExecResult_Success{Success: &agentv1.McpStateSuccess{
				Servers: []*agentv1.McpStateServer{{ServerName: "Linear", ServerIdentifier: "linear", Status: ptr("connected"),
					Instructions: []*agentv1.McpInstructions{{Instructions: "Prefix ids with LIN-."}},
					Tools:        []*agentv1.McpToolDefinition{{ToolName: "create_issue", Description: "Create an issue."}}}}}}}}})},
		result: `<tool name="create_issue">` + "\nCreate an issue.",
		card: func(tc *agentv1.ToolCall) {
			Expect(tc.GetGetMcpToolsToolCall().GetResult().GetSuccess().GetContent()).To(ContainSubstring("Prefix ids with LIN-."))
		},
	},
	"ListMcpResources": {
		args: `{}`, first: "exec:list_mcp_resources_exec_args",
		answers: []func(*tools.Call) tools.Action{onExec(&agentv1.ExecClientMessage{Message: &agentv1.ExecClientMessage_ListMcpResourcesExecResult{
			ListMcpResourcesExecResult: &agentv1.ListMcpResourcesExecResult{Result: &agentv1.ListMcpResourcesExecResult_Success{Success: &agentv1.ListMcpResourcesSuccess{
				Resources: []*agentv1.ListMcpResourcesExecResult_McpResource{{Uri: "docs://readme", Server: "docs", Name: ptr("README")}}}}}}})},
		result: `- docs://readme (server docs, name "README")`,
		card: func(tc *agentv1.ToolCall) {
			Expect(tc.GetListMcpResourcesToolCall().GetResult().GetSuccess().GetResources()).To(HaveLen(1))
		},
	},
	"FetchMcpResource": {
		args: `{"server":"docs","uri":"docs://readme"}`, first: "exec:read_mcp_resource_exec_args",
		answers: []func(*tools.Call) tools.Action{onExec(&agentv1.ExecClientMessage{Message: &agentv1.ExecClientMessage_ReadMcpResourceExecResult{
			ReadMcpResourceExecResult: &agentv1.ReadMcpResourceExecResult{Result: &agentv1.ReadMcpResourceExecResult_Success{Success: &agentv1.ReadMcpResourceSuccess{
				Uri: "docs://readme", Content: &agentv1.ReadMcpResourceSuccess_Text{Text: "# Keygate"}}}}}})},
		result: "# Keygate",
		card: func(tc *agentv1.ToolCall) {
			Expect(tc.GetReadMcpResourceToolCall().GetResult().GetSuccess().GetText()).To(Equal("# Keygate"))
		},
	},
	"McpAuth": {
		args: `{"server":"linear"}`, first: "query:mcp_auth_request_query",
		answers: []func(*tools.Call) tools.Action{onAnswer(&agentv1.InteractionResponse{Result: &agentv1.InteractionResponse_McpAuthRequestResponse{
			McpAuthRequestResponse: &agentv1.McpAuthRequestResponse{Result: &agentv1.McpAuthRequestResponse_Approved_{Approved: &agentv1.McpAuthRequestResponse_Approved{}}}}})},
		result: "The user signed in to linear.",
		card: func(tc *agentv1.ToolCall) {
			Expect(tc.GetMcpAuthToolCall().GetResult().GetSuccess().GetServerIdentifier()).To(Equal("linear"))
		},
	},
}

func ptr[T any](v T) *T { return &v }

// firstKind names an action's kind as behaviour.first does.
func firstKind(a tools.Action) string {
	oneof := func(m protoreflect.Message, name protoreflect.Name) string {
		return string(m.WhichOneof(m.Descriptor().Oneofs().ByName(name)).Name())
	}
	switch {
	case a.Exec != nil:
		return "exec:" + oneof(a.Exec.ProtoReflect(), "message")
	case a.Query != nil:
		return "query:" + oneof(a.Query.ProtoReflect(), "query")
	case a.Result != nil:
		return "result"
	case a.Await != nil:
		return "await"
	}
	return "nothing"
}

var _ = Describe("The tool registry", func() {
	names := func() []string {
		var out []string
		for _, t := range tools.Registry() {
			out = append(out, t.Name)
		}
		return out
	}

	It("registers every tool catalog.json describes, and describes every registered tool", func() {
		registered := names()
		sort.Strings(registered)
		Expect(registered).To(Equal(tools.CatalogNames()))
		for _, t := range tools.Registry() {
			Expect(t.Described).To(BeTrue(), "%s has a description", t.Name)
			Expect(json.Valid(t.Schema)).To(BeTrue(), "%s has a JSON schema", t.Name)
		}
	})

	It("gives every registered tool the handlers its steps need", func() {
		for _, t := range tools.Registry() {
			Expect(t.Start).To(BeTrue(), "%s starts", t.Name)
			Expect(t.Modes).NotTo(BeEmpty(), "%s is offered somewhere", t.Name)
			switch t.Runs {
			case "on the client":
				Expect(t.OnExec).To(BeTrue(), "%s handles exec results", t.Name)
				Expect(t.OnInteraction).To(BeFalse(), "%s asks no query", t.Name)
			case "with the user":
				Expect(t.OnInteraction).To(BeTrue(), "%s handles the user's answer", t.Name)
				Expect(t.OnExec).To(BeFalse(), "%s sends no exec", t.Name)
			case "on the server":
				Expect(t.OnExec || t.OnInteraction).To(BeFalse(), "%s completes at once", t.Name)
			default:
				Fail(t.Name + " runs nowhere")
			}
			Expect(t.OnWeb).To(Equal(t.Web), "%s handles web outcomes exactly when it is a web tool", t.Name)
			Expect(t.OnTask).To(Equal(t.Awaits), "%s handles a task's end exactly when it waits for tasks", t.Name)
		}
	})

	It("gives no two tools the same name or alias", func() {
		seen := map[string]string{}
		for _, t := range tools.Registry() {
			for _, n := range append([]string{t.Name}, t.Aliases...) {
				Expect(seen).NotTo(HaveKey(tools.Canonical(n)), "%s of %s", n, t.Name)
				seen[tools.Canonical(n)] = t.Name
			}
		}
	})

	It("has a behaviour spec for every registered tool, and none for a tool it does not register", func() {
		var specced []string
		for n := range behaviours {
			specced = append(specced, n)
		}
		Expect(specced).To(ConsistOf(names()))
	})

	DescribeTable("offers each mode exactly its tools, in registry order",
		func(mode string, web bool, want []string) {
			ts, err := tools.ForMode(mode, tools.WebAccess{Search: web, Fetch: web})
			Expect(err).NotTo(HaveOccurred())
			got := make([]string, len(ts))
			for i, t := range ts {
				got[i] = t.Name
			}
			Expect(got).To(Equal(want))
		},
		Entry("agent", "agent", false, []string{"Read", "Ls", "Glob", "Grep", "ReadLints", "FetchRules", "CallMcpTool", "GetMcpTools", "ListMcpResources", "FetchMcpResource", "TodoWrite", "AskQuestion", "McpAuth",
			"Shell", "BackgroundShell", "WriteShellStdin", "Await", "Task", "Write", "StrReplace", "Delete", "EditNotebook", "SwitchMode"}),
		Entry("agent with web access", "agent", true, []string{"Read", "Ls", "Glob", "Grep", "ReadLints", "FetchRules", "CallMcpTool", "GetMcpTools", "ListMcpResources", "FetchMcpResource", "TodoWrite", "AskQuestion", "McpAuth", "WebSearch", "WebFetch",
			"Shell", "BackgroundShell", "WriteShellStdin", "Await", "Task", "Write", "StrReplace", "Delete", "EditNotebook", "SwitchMode"}),
		Entry("debug: no mode switch", "debug", false, []string{"Read", "Ls", "Glob", "Grep", "ReadLints", "FetchRules", "CallMcpTool", "GetMcpTools", "ListMcpResources", "FetchMcpResource", "TodoWrite", "AskQuestion", "McpAuth",
			"Shell", "BackgroundShell", "WriteShellStdin", "Await", "Task", "Write", "StrReplace", "Delete", "EditNotebook"}),
		Entry("multitask", "multitask", false, []string{"Read", "Ls", "Glob", "Grep", "ReadLints", "FetchRules", "CallMcpTool", "GetMcpTools", "ListMcpResources", "FetchMcpResource", "TodoWrite", "AskQuestion", "McpAuth",
			"Shell", "BackgroundShell", "WriteShellStdin", "Await", "Task", "Write", "StrReplace", "Delete", "EditNotebook", "SwitchMode"}),
		Entry("ask: reads and asks only", "ask", true, []string{"Read", "Ls", "Glob", "Grep", "ReadLints", "FetchRules", "CallMcpTool", "GetMcpTools", "ListMcpResources", "FetchMcpResource", "TodoWrite", "AskQuestion", "McpAuth", "WebSearch", "WebFetch"}),
		Entry("plan: runs commands and proposes a plan, changes no file", "plan", false, []string{"Read", "Ls", "Glob", "Grep", "ReadLints", "FetchRules", "CallMcpTool", "GetMcpTools", "ListMcpResources", "FetchMcpResource", "TodoWrite", "AskQuestion", "McpAuth",
			"Shell", "BackgroundShell", "WriteShellStdin", "Await", "Task", "CreatePlan"}),
		Entry("subagent: no interaction, no further subagents, no web", "subagent", true, []string{"Read", "Ls", "Glob", "Grep", "ReadLints", "FetchRules", "CallMcpTool", "GetMcpTools", "ListMcpResources", "FetchMcpResource",
			"Shell", "BackgroundShell", "WriteShellStdin", "Await", "Write", "StrReplace", "Delete", "EditNotebook"}),
	)
})

var _ = Describe("Each registered tool", func() {
	var entries []TableEntry
	registered := tools.Registry()
	for _, t := range registered {
		entries = append(entries, Entry(t.Name+" ("+t.Runs+")", t.Name))
	}
	DescribeTable("carries a call from its first action to the result the model gets and the card the client shows",
		func(name string) {
			b, ok := behaviours[name]
			Expect(ok).To(BeTrue(), "no behaviour spec for %s", name)
			env := tools.Env{ConversationID: "conv", ModelID: "kg-model", Now: func() time.Time { return time.UnixMilli(1000) }}
			if b.env != nil {
				b.env(&env)
			}
			c := tools.New(llm.ToolCall{CallID: "call-1", Name: name, Arguments: []byte(b.args)}, env)
			a := c.Start()
			Expect(firstKind(a)).To(Equal(b.first))
			for i, answer := range b.answers {
				Expect(a.Result).To(BeNil(), "%s ended before answer %d", name, i+1)
				a = answer(c)
			}
			Expect(a.Result).NotTo(BeNil(), "%s has a result after its answers", name)
			Expect(a.Result.CallID).To(Equal("call-1"))
			Expect(a.Result.Content).To(ContainSubstring(b.result))
			Expect(a.Result.IsError).To(Equal(b.isError))
			Expect(c.Card().GetCompletedAtMs()).To(BeEquivalentTo(1000))
			b.card(c.Card())
		},
		entries,
	)

	It("ignores answers once the call is done", func() {
		c := newCall("Read", `{"path":"a.txt"}`)
		c.Start()
		Expect(c.OnExec(readOK("x")).Result).NotTo(BeNil())
		Expect(c.OnExec(readOK("y")).Result).To(BeNil())
		Expect(c.OnThrow(&agentv1.ExecClientThrow{Error: "late"}).Result).To(BeNil())
		Expect(c.Abort("late").Result).To(BeNil())
	})

	It("fails a query answered with another tool's answer", func() {
		c := newCall("SwitchMode", `{"target_mode_id":"plan"}`)
		c.Start()
		a := c.OnInteraction(&agentv1.InteractionResponse{Result: &agentv1.InteractionResponse_CreatePlanRequestResponse{
			CreatePlanRequestResponse: &agentv1.CreatePlanRequestResponse{}}})
		Expect(a.Result.IsError).To(BeTrue())
		Expect(a.Result.Content).To(Equal("unexpected interaction response"))
	})

	It("gives a declined web request to the model without asking the server", func() {
		c := newCall("WebFetch", `{"url":"https://example.test/"}`)
		c.Start()
		a := c.OnInteraction(&agentv1.InteractionResponse{Result: &agentv1.InteractionResponse_WebFetchRequestResponse{WebFetchRequestResponse: &agentv1.WebFetchRequestResponse{
			Result: &agentv1.WebFetchRequestResponse_Rejected_{Rejected: &agentv1.WebFetchRequestResponse_Rejected{Reason: "no"}}}}})
		Expect(a.Web).To(BeNil())
		Expect(a.Result.Content).To(Equal("The user declined fetching the page. no"))
		Expect(a.Result.IsError).To(BeFalse())
		Expect(c.Card().GetWebFetchToolCall().GetResult().GetRejected().GetReason()).To(Equal("no"))
	})

	It("hands an approved fetch to the server and shows the page, and where a redirect led, to model and card", func() {
		c := newCall("WebFetch", `{"url":"http://old.example/"}`)
		c.Start()
		a := c.OnInteraction(&agentv1.InteractionResponse{Result: &agentv1.InteractionResponse_WebFetchRequestResponse{WebFetchRequestResponse: &agentv1.WebFetchRequestResponse{
			Result: &agentv1.WebFetchRequestResponse_Approved_{Approved: &agentv1.WebFetchRequestResponse_Approved{}}}}})
		Expect(a.Web).To(Equal(&tools.Web{Fetch: "http://old.example/"}))
		a = c.OnWeb(tools.WebOutcome{Page: ports.WebPage{URL: "https://new.example/", Text: "# Moved\n\nhere"}})
		Expect(a.Result.Content).To(Equal("(Redirected to https://new.example/)\n\n# Moved\n\nhere"))
		s := c.Card().GetWebFetchToolCall().GetResult().GetSuccess()
		Expect(s.GetUrl()).To(Equal("https://new.example/"))
		Expect(s.GetMarkdown()).To(Equal("# Moved\n\nhere"))
	})

	It("tells the model a search found nothing, and shows a declined search as rejected on the card", func() {
		c := newCall("WebSearch", `{"search_term":"zzz"}`)
		c.Start()
		approve := &agentv1.InteractionResponse{Result: &agentv1.InteractionResponse_WebSearchRequestResponse{WebSearchRequestResponse: &agentv1.WebSearchRequestResponse{
			Result: &agentv1.WebSearchRequestResponse_Approved_{Approved: &agentv1.WebSearchRequestResponse_Approved{}}}}}
		Expect(c.OnInteraction(approve).Web).To(Equal(&tools.Web{Search: "zzz"}))
		Expect(c.OnWeb(tools.WebOutcome{}).Result.Content).To(Equal(`No web results for "zzz".`))

		d := newCall("WebSearch", `{"search_term":"zzz"}`)
		d.Start()
		a := d.OnInteraction(&agentv1.InteractionResponse{Result: &agentv1.InteractionResponse_WebSearchRequestResponse{WebSearchRequestResponse: &agentv1.WebSearchRequestResponse{
			Result: &agentv1.WebSearchRequestResponse_Rejected_{Rejected: &agentv1.WebSearchRequestResponse_Rejected{Reason: "not now"}}}}})
		Expect(a.Result.Content).To(Equal("The user declined the web search. not now"))
		Expect(d.Card().GetWebSearchToolCall().GetResult().GetRejected().GetReason()).To(Equal("not now"))
	})
})
