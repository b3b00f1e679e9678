package tools_test

import (
	"time"

	. "github.com/onsi/ginkgo/v2"
	. "github.com/onsi/gomega"

	"keygate/adapters/cursor/tools"
	"keygate/domain/llm"
	agentv1 "keygate/gen/cursor/agent/v1"
)

// png is the start of a PNG file: enough for its type to be detected.
var png = []byte("\x89PNG\r\n\x1a\n\x00\x00\x00\rIHDR\x00\x00\x00\x01\x00\x00\x00\x01\x08\x02")

func callWith(name, args string, env func(*tools.Env)) *tools.Call {
	e := tools.Env{ConversationID: "conv", ModelID: "kg-model", Now: func() time.Time { return time.UnixMilli(1000) }}
	if env != nil {
		env(&e)
	}
	return tools.New(llm.ToolCall{CallID: "call-1", Name: name, Arguments: []byte(args)}, e)
}

func readBytes(path string, data []byte) *agentv1.ExecClientMessage {
	return &agentv1.ExecClientMessage{Message: &agentv1.ExecClientMessage_ReadResult{ReadResult: &agentv1.ReadResult{
		Result: &agentv1.ReadResult_Success{Success: &agentv1.ReadSuccess{Path: path, FileSize: int64(len(data)), Output: &agentv1.ReadSuccess_Data{Data: data}}}}}}
}

func diagnostics(path string, msgs ...string) *agentv1.ExecClientMessage {
	s := &agentv1.DiagnosticsSuccess{Path: path}
	for i, m := range msgs {
		s.Diagnostics = append(s.Diagnostics, &agentv1.Diagnostic{Severity: agentv1.DiagnosticSeverity_DIAGNOSTIC_SEVERITY_WARNING, Message: m,
			Range: &agentv1.Range{Start: &agentv1.Position{Line: uint32(i + 1)}}})
	}
	return &agentv1.ExecClientMessage{Message: &agentv1.ExecClientMessage_DiagnosticsResult{DiagnosticsResult: &agentv1.DiagnosticsResult{
		Result: &agentv1.DiagnosticsResult_Success{Success: s}}}}
}

var _ = Describe("Cursor tool features", func() {
	Describe("Read of a file that is not text", func() {
		It("gives a model that takes images the image", func() {
			c := callWith("Read", `{"path":"logo.png"}`, func(e *tools.Env) { e.Images = true })
			c.Start()
			a := c.OnExec(readBytes("logo.png", png))
			Expect(a.Result.Image).NotTo(BeNil())
			Expect(a.Result.Image.MIMEType).To(Equal("image/png"))
			Expect(a.Result.Image.Data).To(Equal(png))
			Expect(a.Result.Content).To(ContainSubstring("Image logo.png"))
			Expect(c.Card().GetReadToolCall().GetResult().GetSuccess().GetData()).To(Equal(png))
		})

		It("tells a model without images what the file is, never that it is empty", func() {
			c := callWith("Read", `{"path":"logo.png"}`, nil)
			c.Start()
			a := c.OnExec(readBytes("logo.png", png))
			Expect(a.Result.Image).To(BeNil())
			Expect(a.Result.Content).To(ContainSubstring("does not take images"))
			Expect(a.Result.Content).NotTo(ContainSubstring("empty"))
		})

		It("describes another binary file instead of showing it", func() {
			c := callWith("Read", `{"path":"app.bin"}`, func(e *tools.Env) { e.Images = true })
			c.Start()
			a := c.OnExec(readBytes("app.bin", []byte{0x7f, 'E', 'L', 'F', 0, 1, 2}))
			Expect(a.Result.Image).To(BeNil())
			Expect(a.Result.Content).To(ContainSubstring("app.bin is a binary file (7 bytes"))
		})

		It("treats text with NUL bytes as binary", func() {
			c := callWith("Read", `{"path":"x.dat"}`, nil)
			c.Start()
			Expect(c.OnExec(readOK("ab\x00cd")).Result.Content).To(ContainSubstring("binary file"))
		})

		It("says File is empty only of an empty file", func() {
			c := callWith("Read", `{"path":"a.txt"}`, nil)
			c.Start()
			Expect(c.OnExec(readOK("")).Result.Content).To(Equal("File is empty."))
			c = callWith("Read", `{"path":"big.txt"}`, nil)
			c.Start()
			a := c.OnExec(&agentv1.ExecClientMessage{Message: &agentv1.ExecClientMessage_ReadResult{ReadResult: &agentv1.ReadResult{
				Result: &agentv1.ReadResult_Success{Success: &agentv1.ReadSuccess{Path: "big.txt", FileSize: 900}}}}})
			Expect(a.Result.Content).To(ContainSubstring("no content for big.txt (900 bytes)"))
		})
	})

	It("lints every path and shows each file's diagnostics on the card", func() {
		c := callWith("ReadLints", `{"paths":["a.go","b.go"]}`, nil)
		a := c.Start()
		Expect(a.Exec.GetDiagnosticsArgs().GetPath()).To(Equal("a.go"))
		a = c.OnExec(diagnostics("a.go", "unused x"))
		Expect(a.Result).To(BeNil())
		Expect(a.Exec.GetDiagnosticsArgs().GetPath()).To(Equal("b.go"))
		a = c.OnExec(diagnostics("b.go", "shadowed y", "dead code"))
		Expect(a.Result.Content).To(And(ContainSubstring("a.go:1: WARNING: unused x"), ContainSubstring("b.go:2: WARNING: dead code")))
		s := c.Card().GetReadLintsToolCall().GetResult().GetSuccess()
		Expect(s.GetTotalFiles()).To(BeEquivalentTo(2))
		Expect(s.GetTotalDiagnostics()).To(BeEquivalentTo(3))
		Expect(s.GetFileDiagnostics()[1].GetDiagnostics()[0].GetMessage()).To(Equal("shadowed y"))
	})

	DescribeTable("Task honours the user's model choice per subagent type",
		func(override *agentv1.SubagentModelOverride, args, wantModel, wantErr string) {
			c := callWith("Task", args, func(e *tools.Env) { e.SubagentOverrides = []*agentv1.SubagentModelOverride{override} })
			a := c.Start()
			if wantErr != "" {
				Expect(a.Result.IsError).To(BeTrue())
				Expect(a.Result.Content).To(ContainSubstring(wantErr))
				return
			}
			Expect(a.Exec.GetSubagentArgs().GetModelId()).To(Equal(wantModel))
		},
		Entry("a chosen model wins over the model's own choice",
			&agentv1.SubagentModelOverride{SubagentType: "explore", Selection: &agentv1.SubagentModelOverride_Model{Model: &agentv1.RequestedModel{ModelId: "kg-small"}}},
			`{"description":"d","prompt":"p","subagent_type":"explore","model":"kg-big"}`, "kg-small", ""),
		Entry("inherit uses the parent's model",
			&agentv1.SubagentModelOverride{SubagentType: "explore", Selection: &agentv1.SubagentModelOverride_Inherit{Inherit: true}},
			`{"description":"d","prompt":"p","subagent_type":"explore","model":"kg-big"}`, "kg-model", ""),
		Entry("another type is left alone",
			&agentv1.SubagentModelOverride{SubagentType: "bash", Selection: &agentv1.SubagentModelOverride_Model{Model: &agentv1.RequestedModel{ModelId: "kg-small"}}},
			`{"description":"d","prompt":"p","subagent_type":"explore"}`, "kg-model", ""),
		Entry("a turned-off type is refused",
			&agentv1.SubagentModelOverride{SubagentType: "explore", Selection: &agentv1.SubagentModelOverride_Disabled{Disabled: true}},
			`{"description":"d","prompt":"p","subagent_type":"explore"}`, "", "turned off"),
	)

	It("runs a subagent in the background or resumes one, and reports a backgrounded one", func() {
		c := callWith("Task", `{"description":"d","prompt":"p","run_in_background":true,"resume_agent_id":"sub-1","subagent_type":"explore"}`, nil)
		a := c.Start()
		Expect(a.Exec.GetSubagentArgs().GetRunInBackground()).To(BeTrue())
		Expect(a.Exec.GetSubagentArgs().GetResumeAgentId()).To(Equal("sub-1"))
		Expect(c.Card().GetTaskToolCall().GetArgs().GetSubagentType().GetExplore()).NotTo(BeNil())
		a = c.OnExec(&agentv1.ExecClientMessage{Message: &agentv1.ExecClientMessage_SubagentResult{SubagentResult: &agentv1.SubagentResult{
			Result: &agentv1.SubagentResult_Success{Success: &agentv1.SubagentSuccess{AgentId: "sub-1",
				BackgroundReason: agentv1.SubagentBackgroundReason_SUBAGENT_BACKGROUND_REASON_AGENT_REQUEST}}}}})
		Expect(a.Result.Content).To(ContainSubstring(`call Await with task_id "sub-1"`))
		Expect(c.Card().GetTaskToolCall().GetResult().GetSuccess().GetIsBackground()).To(BeTrue())
	})

	It("awaits a subagent through the client and a shell on the server, which times out still running", func() {
		c := callWith("Await", `{"task_id":"sub-1","block_until_ms":2000}`, func(e *tools.Env) { e.Subagents = []string{"sub-1"} })
		a := c.Start()
		Expect(a.Exec.GetSubagentAwaitArgs().GetAgentId()).To(Equal("sub-1"))
		Expect(a.Exec.GetSubagentAwaitArgs().GetTimeoutMs()).To(BeEquivalentTo(2000))
		a = c.OnExec(&agentv1.ExecClientMessage{Message: &agentv1.ExecClientMessage_SubagentAwaitResult{SubagentAwaitResult: &agentv1.SubagentAwaitResult{
			Result: &agentv1.SubagentAwaitResult_Complete{Complete: &agentv1.SubagentAwaitComplete{AgentId: "sub-1", FinalMessage: ptr("All green.")}}}}})
		Expect(a.Result.Content).To(ContainSubstring("All green."))

		c = callWith("Await", `{"task_id":"7","block_until_ms":50}`, nil)
		a = c.Start()
		Expect(a.Await).To(Equal(&tools.Await{TaskID: "7", For: 50 * time.Millisecond}))
		a = c.OnTask(nil)
		Expect(a.Result.Content).To(Equal("Task 7 is still running after 50 ms."))
		Expect(c.Card().GetAwaitToolCall().GetResult().GetSuccess().GetStillRunning()).NotTo(BeNil())
	})

	It("turns CallMcpTool with mcp_auth into the sign-in question, and refuses it on a client that cannot sign in", func() {
		c := callWith("CallMcpTool", `{"server":"linear","toolName":"mcp_auth"}`, nil)
		a := c.Start()
		Expect(a.Query.GetMcpAuthRequestQuery().GetArgs().GetServerIdentifier()).To(Equal("linear"))
		a = c.OnInteraction(&agentv1.InteractionResponse{Result: &agentv1.InteractionResponse_McpAuthRequestResponse{McpAuthRequestResponse: &agentv1.McpAuthRequestResponse{
			Result: &agentv1.McpAuthRequestResponse_Rejected_{Rejected: &agentv1.McpAuthRequestResponse_Rejected{Reason: "later"}}}}})
		Expect(a.Result.Content).To(Equal("The user did not sign in to linear. later"))
		Expect(c.Card().GetMcpAuthToolCall().GetResult().GetRejected().GetReason()).To(Equal("later"))

		c = callWith("McpAuth", `{"server":"linear"}`, func(e *tools.Env) { e.NoMCPAuth = true })
		a = c.Start()
		Expect(a.Query).To(BeNil())
		Expect(a.Result.IsError).To(BeTrue())
	})

	Describe("CallMcpTool on the client's own MCP tools (RequestContext.tools)", func() {
		direct := func(e *tools.Env) {
			e.MCP = []*agentv1.McpToolDefinition{
				{Name: "github-create_issue", ProviderIdentifier: "github", ToolName: "create_issue"},
				{Name: "lonely_tool"},
			}
		}

		It("calls the tool by server and tool name, with the client's own name for it", func() {
			a := callWith("CallMcpTool", `{"server":"github","toolName":"create_issue","arguments":{"title":"Crash"}}`, direct).Start()
			args := a.Exec.GetMcpArgs()
			Expect(args.GetName()).To(Equal("github-create_issue"))
			Expect(args.GetProviderIdentifier()).To(Equal("github"))
			Expect(args.GetToolName()).To(Equal("create_issue"))
			Expect(args.GetToolCallId()).To(Equal("call-1"))
			Expect(args.GetArgs()["title"].GetStringValue()).To(Equal("Crash"))
		})

		It("accepts the tool's full name, and any server for a tool that names none", func() {
			Expect(callWith("CallMcpTool", `{"server":"github","toolName":"github-create_issue"}`, direct).Start().Exec.GetMcpArgs().GetToolName()).
				To(Equal("create_issue"))
			Expect(callWith("CallMcpTool", `{"server":"whatever","toolName":"lonely_tool"}`, direct).Start().Exec.GetMcpArgs().GetName()).
				To(Equal("lonely_tool"))
		})

		It("refuses a tool of another server as a tool error that says where the tools are listed", func() {
			a := callWith("CallMcpTool", `{"server":"gitlab","toolName":"create_issue"}`, direct).Start()
			Expect(a.Exec).To(BeNil())
			Expect(a.Result.IsError).To(BeTrue())
			Expect(a.Result.Content).To(ContainSubstring("listed in the request context"))
		})

		It("still carries out a call of such a tool by its own name, as older conversations made them", func() {
			a := callWith("github-create_issue", `{"title":"Crash"}`, direct).Start()
			Expect(a.Exec.GetMcpArgs().GetName()).To(Equal("github-create_issue"))
		})
	})

	It("completes a question the user answers later and renders the late answers with their labels", func() {
		c := callWith("AskQuestion", `{"questions":[{"id":"db","prompt":"Which?","options":[{"id":"pg","label":"Postgres"}]}]}`, nil)
		c.Start()
		a := c.OnInteraction(&agentv1.InteractionResponse{Result: &agentv1.InteractionResponse_AskQuestionInteractionResponse{
			AskQuestionInteractionResponse: &agentv1.AskQuestionInteractionResponse{Result: &agentv1.AskQuestionResult{
				Result: &agentv1.AskQuestionResult_Async{Async: &agentv1.AskQuestionAsync{}}}}}})
		Expect(a.Result.IsError).To(BeFalse())
		Expect(a.Result.Content).To(ContainSubstring("will answer these questions later"))
		Expect(tools.AnswersText(c.Card().GetAskQuestionToolCall().GetArgs(), &agentv1.AskQuestionResult{Result: &agentv1.AskQuestionResult_Success{
			Success: &agentv1.AskQuestionSuccess{Answers: []*agentv1.AskQuestionSuccess_Answer{{QuestionId: "db", SelectedOptionIds: []string{"pg"}}}}}})).
			To(Equal("db: pg (Postgres)\n"))
	})

	It("gives the model and the card what the user's hooks added to an exec's result", func() {
		c := callWith("Read", `{"path":"a.txt"}`, nil)
		c.Start()
		m := readOK("alpha")
		m.HookAdditionalContexts = []*agentv1.HookAdditionalContext{{HookEventName: "afterFileRead", Content: "a.txt is generated"}}
		a := c.OnExec(m)
		Expect(a.Result.Content).To(Equal("alpha\n\n<hook_context event=\"afterFileRead\">\na.txt is generated\n</hook_context>"))
		Expect(c.Card().GetHookAdditionalContexts()).To(HaveLen(1))
	})

	It("gives the model what the user's hooks reported in a shell's stream", func() {
		c := callWith("Shell", `{"command":"make"}`, nil)
		c.Start()
		c.OnExec(shellEvent(&agentv1.ShellStream{Event: &agentv1.ShellStream_HookContext{HookContext: &agentv1.ShellStreamHookContext{
			HookAdditionalContexts: []*agentv1.HookAdditionalContext{{HookEventName: "afterShellExecution", Content: "make is slow here"}}}}}))
		a := c.OnExec(shellEvent(&agentv1.ShellStream{Event: &agentv1.ShellStream_Exit{Exit: &agentv1.ShellStreamExit{Code: 0}}}))
		Expect(a.Result.Content).To(ContainSubstring(`<hook_context event="afterShellExecution">` + "\nmake is slow here"))
	})

	DescribeTable("glob rules match files",
		func(globs []string, file string, want bool) {
			r := &agentv1.CursorRule{FullPath: "/ws/.cursor/rules/r.mdc", Type: &agentv1.CursorRuleType{Type: &agentv1.CursorRuleType_FileGlobbed{
				FileGlobbed: &agentv1.CursorRuleTypeFileGlobs{Globs: globs}}}}
			Expect(tools.RuleMatches(r, file, []string{"/ws"})).To(Equal(want))
		},
		Entry("** over a relative path", []string{"**/*.sql"}, "/ws/db/q/users.sql", true),
		Entry("a directory glob relative to the workspace", []string{"src/**/*.go"}, "/ws/src/a/b.go", true),
		Entry("a directory glob outside it", []string{"src/**/*.go"}, "/ws/cmd/main.go", false),
		Entry("a name glob matches the file's name", []string{"*.md"}, "/ws/notes/guide.md", true),
		Entry("comma-separated globs", []string{"*.ts, *.tsx"}, "/ws/web/app.tsx", true),
		Entry("no match", []string{"*.sql"}, "/ws/main.go", false),
	)
})
