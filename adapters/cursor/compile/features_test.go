package compile_test

import (
	"strings"
	"time"

	. "github.com/onsi/ginkgo/v2"
	. "github.com/onsi/gomega"

	"keygate/adapters/cursor/compile"
	"keygate/domain/conversation"
	agentv1 "keygate/gen/cursor/agent/v1"
)

// rule builds a Cursor rule of a type.
func rule(path, content string, typ *agentv1.CursorRuleType) *agentv1.CursorRule {
	return &agentv1.CursorRule{FullPath: path, Content: content, Type: typ}
}

var (
	always = &agentv1.CursorRuleType{Type: &agentv1.CursorRuleType_Global{Global: &agentv1.CursorRuleTypeGlobal{}}}
	globs  = func(g ...string) *agentv1.CursorRuleType {
		return &agentv1.CursorRuleType{Type: &agentv1.CursorRuleType_FileGlobbed{FileGlobbed: &agentv1.CursorRuleTypeFileGlobs{Globs: g}}}
	}
	requested = func(d string) *agentv1.CursorRuleType {
		return &agentv1.CursorRuleType{Type: &agentv1.CursorRuleType_AgentFetched{AgentFetched: &agentv1.CursorRuleTypeAgentFetched{Description: d}}}
	}
	manual = &agentv1.CursorRuleType{Type: &agentv1.CursorRuleType_ManuallyAttached{ManuallyAttached: &agentv1.CursorRuleTypeManuallyAttached{}}}
)

var _ = Describe("Compile, Cursor context features", func() {
	var rc *agentv1.RequestContext
	compileWith := func(um *agentv1.UserMessage) compile.Output {
		out, err := compile.Compile(compile.Input{RequestID: "req", RunID: "req:1", ConversationID: "conv", Request: &agentv1.AgentRunRequest{},
			Now: time.Date(2026, 11, 30, 10, 0, 0, 0, time.UTC),
			Action: &agentv1.ConversationAction{Action: &agentv1.ConversationAction_UserMessageAction{UserMessageAction: &agentv1.UserMessageAction{
				UserMessage: um, RequestContext: rc}}}})
		Expect(err).NotTo(HaveOccurred())
		return out
	}
	// contextText is every request-context message of the turn.
	contextText := func(out compile.Output) string {
		var b strings.Builder
		for _, m := range out.Run.InitialMessages {
			if _, ok := conversation.RequestContextEvent(m.ID()); ok {
				b.WriteString(m.Text() + "\n")
			}
		}
		return b.String()
	}
	userText := func(out compile.Output) string { return out.Run.InitialMessages[len(out.Run.InitialMessages)-1].Text() }

	BeforeEach(func() {
		rc = &agentv1.RequestContext{Env: &agentv1.RequestContextEnv{WorkspacePaths: []string{"/ws"}}, Rules: []*agentv1.CursorRule{
			rule("/ws/.cursor/rules/style.mdc", "ALWAYS: gofmt everything.", always),
			rule("/ws/.cursor/rules/untyped.mdc", "UNTYPED: short names.", nil),
			rule("/ws/.cursor/rules/sql.mdc", "GLOB: use sqlc.", globs("**/*.sql")),
			rule("/ws/.cursor/rules/db.mdc", "REQUESTED: migrations only.", requested("Database schema changes")),
			rule("/ws/.cursor/rules/release.mdc", "MANUAL: tag from main.", manual),
		}}
	})

	DescribeTable("rules by type",
		func(um *agentv1.UserMessage, inContext, inTurn, absent []string) {
			out := compileWith(um)
			for _, s := range inContext {
				Expect(contextText(out)).To(ContainSubstring(s))
			}
			for _, s := range inTurn {
				Expect(userText(out)).To(ContainSubstring(s))
			}
			for _, s := range absent {
				Expect(contextText(out) + userText(out)).NotTo(ContainSubstring(s))
			}
		},
		Entry("always and untyped rules are inlined; glob, requestable and manual ones are not",
			&agentv1.UserMessage{Text: "hi", MessageId: "m1"},
			[]string{"ALWAYS: gofmt everything.", "UNTYPED: short names."}, nil,
			[]string{"GLOB: use sqlc.", "REQUESTED: migrations only.", "MANUAL: tag from main."}),
		Entry("an agent-requestable rule is listed by name with its description",
			&agentv1.UserMessage{Text: "hi", MessageId: "m1"},
			[]string{`name="db"`, "Database schema changes", "FetchRules"}, nil, []string{"REQUESTED: migrations only."}),
		Entry("a glob rule comes with a turn whose attached file it matches",
			&agentv1.UserMessage{Text: "fix the query", MessageId: "m1", SelectedContext: &agentv1.SelectedContext{
				Files: []*agentv1.SelectedFile{{Path: "/ws/db/queries/users.sql", Content: "select 1"}}}},
			nil, []string{"GLOB: use sqlc."}, nil),
		Entry("a glob rule stays out when no attached file matches",
			&agentv1.UserMessage{Text: "fix main", MessageId: "m1", SelectedContext: &agentv1.SelectedContext{
				Files: []*agentv1.SelectedFile{{Path: "/ws/main.go", Content: "package main"}}}},
			nil, nil, []string{"GLOB: use sqlc."}),
		Entry("a manual rule comes with a turn that mentions it",
			&agentv1.UserMessage{Text: "cut a release per @release", MessageId: "m1"},
			nil, []string{"MANUAL: tag from main."}, nil),
	)

	It("hands the run the rules it applies on demand: glob and requestable ones", func() {
		out := compileWith(&agentv1.UserMessage{Text: "hi", MessageId: "m1"})
		var paths []string
		for _, r := range out.Rules {
			paths = append(paths, r.GetFullPath())
		}
		Expect(paths).To(ConsistOf("/ws/.cursor/rules/sql.mdc", "/ws/.cursor/rules/db.mdc"))
	})

	It("shows MCP servers' instructions, project layouts and the hooks' context to the model", func() {
		rc.McpMetaToolOptions = &agentv1.McpMetaToolOptions{McpDescriptors: []*agentv1.McpDescriptor{{ServerName: "Linear", ServerIdentifier: "linear",
			Tools: []*agentv1.McpToolDescriptor{{ToolName: "create_issue"}}}}}
		rc.McpInstructions = []*agentv1.McpInstructions{
			{ServerIdentifier: "linear", ServerName: "Linear", Instructions: "Prefix issue ids with LIN-."},
			{ServerIdentifier: "sentry", ServerName: "Sentry", Instructions: "Link every event."},
		}
		rc.ProjectLayouts = []*agentv1.LsDirectoryTreeNode{{AbsPath: "/ws", ChildrenDirs: []*agentv1.LsDirectoryTreeNode{{AbsPath: "/ws/cmd",
			ChildrenFiles: []*agentv1.LsDirectoryTreeNode_File{{Name: "main.go"}}}}, ChildrenFiles: []*agentv1.LsDirectoryTreeNode_File{{Name: "go.mod"}}}}
		rc.HooksAdditionalContext = ptr("The build on main is red.")
		out := compileWith(&agentv1.UserMessage{Text: "hi", MessageId: "m1",
			HookAdditionalContexts: []*agentv1.HookAdditionalContext{{HookEventName: "beforeSubmitPrompt", Content: "KG-7 is open"}}})
		ctx := contextText(out)
		Expect(ctx).To(ContainSubstring("<instructions>\nPrefix issue ids with LIN-.\n</instructions>"))
		Expect(ctx).To(ContainSubstring(`<mcp_server_instructions server="Sentry">` + "\nLink every event."))
		Expect(ctx).To(ContainSubstring(`<project_layout root="/ws">`))
		Expect(ctx).To(ContainSubstring("- cmd/\n  - main.go\n- go.mod"))
		Expect(ctx).To(ContainSubstring("The build on main is red."))
		Expect(userText(out)).To(ContainSubstring(`<hook_context event="beforeSubmitPrompt">` + "\nKG-7 is open"))
	})

	Describe("the client's MCP tools (RequestContext.tools and the run request's)", func() {
		BeforeEach(func() {
			rc.Tools = []*agentv1.McpToolDefinition{
				{Name: "linear-list_issues", ProviderIdentifier: "linear", ToolName: "list_issues", Description: "List issues.",
					InputSchemaJson: ptr(`{"type":"object","properties":{"team":{"type":"string"}}}`)},
				{Name: "github-create_issue", ProviderIdentifier: "github", ToolName: "create_issue", Description: "Open an issue."},
			}
			rc.McpInstructions = []*agentv1.McpInstructions{{ServerIdentifier: "github", Instructions: "Label every issue."}}
		})

		It("are listed in the MCP channel by server with their schemas, never among the tools", func() {
			out := compileWith(&agentv1.UserMessage{Text: "hi", MessageId: "m1"})
			var mcp string
			for _, m := range out.Run.InitialMessages {
				if ch, _, _ := conversation.ContextOf(m.ID()); ch == conversation.ContextMCP {
					mcp = m.Text()
				}
			}
			Expect(mcp).To(ContainSubstring("CallMcpTool"))
			Expect(mcp).To(ContainSubstring(`<mcp_server identifier="github">` + "\n<instructions>\nLabel every issue.\n</instructions>"))
			Expect(mcp).To(ContainSubstring(`<mcp_tool name="list_issues">` + "\nList issues.\nInput schema: {\"type\":\"object\",\"properties\":{\"team\":{\"type\":\"string\"}}}"))
			Expect(strings.Index(mcp, `identifier="github"`)).To(BeNumerically("<", strings.Index(mcp, `identifier="linear"`)), "servers by identifier")
			for _, t := range out.Run.Prompt.Tools {
				Expect(t.Name).NotTo(ContainSubstring("issue"))
			}
			Expect(out.MCP).To(HaveLen(2), "the run still knows them, for CallMcpTool")
		})

		It("leave the tools as they were when a server is added", func() {
			without := rc.Tools[:1]
			rc.Tools = without
			before := compileWith(&agentv1.UserMessage{Text: "hi", MessageId: "m1"})
			rc.Tools = append(without, &agentv1.McpToolDefinition{Name: "aaa-first", ProviderIdentifier: "aaa", ToolName: "first"})
			after := compileWith(&agentv1.UserMessage{Text: "hi", MessageId: "m1"})
			Expect(after.Run.Prompt).To(Equal(before.Run.Prompt))
		})

		It("compile to the same text whatever order the client lists them in", func() {
			a := contextText(compileWith(&agentv1.UserMessage{Text: "hi", MessageId: "m1"}))
			rc.Tools[0], rc.Tools[1] = rc.Tools[1], rc.Tools[0]
			Expect(contextText(compileWith(&agentv1.UserMessage{Text: "hi", MessageId: "m1"}))).To(Equal(a))
		})
	})

	Describe("the editor's state", func() {
		withIDE := func(ide *agentv1.InvocationContext_IdeState) *agentv1.UserMessage {
			return &agentv1.UserMessage{Text: "hi", MessageId: "m1", SelectedContext: &agentv1.SelectedContext{
				InvocationContext: &agentv1.InvocationContext{Data: &agentv1.InvocationContext_IdeState_{IdeState: ide}}}}
		}
		editorOf := func(out compile.Output) (string, bool) {
			for _, m := range out.Run.InitialMessages {
				if ch, _, _ := conversation.ContextOf(m.ID()); ch == conversation.ContextEditor {
					return m.Text(), true
				}
			}
			return "", false
		}

		It("reaches the model as the editor channel: open files with the cursor, then recently viewed files", func() {
			out := compileWith(withIDE(&agentv1.InvocationContext_IdeState{
				VisibleFiles: []*agentv1.InvocationContext_IdeState_File{{Path: "/ws/main.go", TotalLines: 40,
					CursorPosition: &agentv1.InvocationContext_IdeState_File_CursorPosition{Line: 12, Text: "func main() {"}}},
				RecentlyViewedFiles: []*agentv1.InvocationContext_IdeState_File{{RelativePath: ptr("go.mod")}},
			}))
			text, ok := editorOf(out)
			Expect(ok).To(BeTrue())
			Expect(text).To(ContainSubstring("- /ws/main.go (40 lines), cursor on line 12: func main() {"))
			Expect(text).To(ContainSubstring("Recently viewed files:\n- go.mod"))
			Expect(userText(out)).NotTo(ContainSubstring("main.go"), "not in the user's message")
		})

		It("adds nothing for a message that carries no editor state", func() {
			_, ok := editorOf(compileWith(&agentv1.UserMessage{Text: "hi", MessageId: "m1"}))
			Expect(ok).To(BeFalse())
		})
	})

	It("keeps the model's display name out of the prompt", func() {
		out := compileWith(&agentv1.UserMessage{Text: "hi", MessageId: "m1"})
		Expect(out.Run.Prompt.Instructions).NotTo(ContainSubstring("{{"))
		Expect(out.Run.Prompt.Instructions).To(HavePrefix("You are a coding assistant"))
	})

	It("gives the run the prompt of another mode, for a mode switch during the run", func() {
		out := compileWith(&agentv1.UserMessage{Text: "hi", MessageId: "m1"})
		plan, err := out.PromptFor(compile.ModePlan)
		Expect(err).NotTo(HaveOccurred())
		Expect(plan.Instructions).To(Equal(out.Run.Prompt.Instructions), "the mode's paragraph is not in the instructions")
		Expect(plan.Name).To(Equal("plan"))
		var names []string
		for _, t := range plan.Tools {
			names = append(names, t.Name)
		}
		Expect(names).To(ContainElement("CreatePlan"))
		Expect(names).NotTo(ContainElement("Write"))
	})

	It("records the user's shell command with its output and asks the model nothing", func() {
		out, err := compile.Compile(compile.Input{RequestID: "req", RunID: "req:1", ConversationID: "conv", Request: &agentv1.AgentRunRequest{},
			Action: &agentv1.ConversationAction{Action: &agentv1.ConversationAction_ShellCommandAction{ShellCommandAction: &agentv1.ShellCommandAction{
				ShellCommand: &agentv1.ShellCommand{Command: "go version"}, ExecId: "x1"}}},
			Shell: &compile.UserShell{Command: "go version", Stdout: "go version go1.26\n", ExitCode: 0}})
		Expect(err).NotTo(HaveOccurred())
		Expect(out.Run.InitialMessages).To(HaveLen(1))
		Expect(out.Run.InitialMessages[0].Text()).To(And(ContainSubstring("$ go version"), ContainSubstring("go1.26"),
			ContainSubstring("you did not run it")))
		Expect(out.Shell.GetShellOutput().GetStdout()).To(Equal("go version go1.26\n"))
		Expect(out.UserMessage).To(BeNil())
	})
})

func ptr[T any](v T) *T { return &v }
