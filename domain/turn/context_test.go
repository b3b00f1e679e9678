package turn_test

import (
	"fmt"
	"strings"
	"unicode/utf8"

	. "github.com/onsi/ginkgo/v2"
	. "github.com/onsi/gomega"

	"keygate/domain/llm"
	"keygate/domain/turn"
)

var _ = Describe("RequestContext.Compile", func() {
	var rc turn.RequestContext

	BeforeEach(func() {
		rc = turn.RequestContext{
			UserInfo:          turn.UserInfo{OS: "linux", Shell: "bash", Workspace: "/w", IsGitRepo: true, Today: "2026-11-30"},
			Git:               []turn.GitRepo{{Path: "/w", Status: "clean"}},
			TranscriptsFolder: "/t",
			Rules: []turn.Rule{
				{Path: "/w/.cursor/rules/go.mdc", Content: "Use gofmt."},
				{Path: "/w/skills/x/SKILL.md", Content: "skill file"},
				{Path: "/w/dup.mdc", Content: "Deploy steps."},
			},
			Skills: []turn.Skill{
				{Path: "/s/deploy", Description: "deploys", Content: "Deploy steps."},
				{Path: "/s/hidden", Description: "secret", DisableModelInvocation: true},
			},
			Subagents: []turn.Subagent{{Name: "explorer", Description: "reads code"}},
			Hooks:     "The build is red on main.",
		}
	})

	It("renders the sections in a fixed order", func() {
		out := rc.Compile()
		order := []string{"<user_info>", "<git_status", "<agent_transcripts>", "<rules>", "<agent_skills>", "<subagents>", "<hooks_context>"}
		last := -1
		for _, tag := range order {
			at := strings.Index(out, tag)
			Expect(at).To(BeNumerically(">", last), tag)
			last = at
		}
	})

	It("compiles an unchanged context to identical bytes", func() {
		Expect(rc.Compile()).To(Equal(rc.Compile()))
	})

	DescribeTable("what the compiled context holds",
		func(fragment string, present bool) {
			if present {
				Expect(rc.Compile()).To(ContainSubstring(fragment))
			} else {
				Expect(rc.Compile()).NotTo(ContainSubstring(fragment))
			}
		},
		Entry("file rules are listed", "Use gofmt.", true),
		Entry("rules that are skill files are dropped", "skill file", false),
		Entry("rules repeating a skill's content are dropped", `path="/w/dup.mdc"`, false),
		Entry("skills available to the model are listed", `fullPath="/s/deploy"`, true),
		Entry("skills hidden from the model are not listed", "/s/hidden", false),
		Entry("the git status is labelled a snapshot", "when the conversation started", true),
		Entry("the git flag is spelt out", "git repository: yes", true),
	)

	It("lists agent-requestable rules by name and description, never their content", func() {
		rc := turn.RequestContext{Rules: []turn.Rule{
			{Path: "/w/.cursor/rules/always.mdc", Content: "Always gofmt."},
			{Path: "/w/.cursor/rules/db.mdc", Content: "Use migrations.", Requestable: true, Name: "db", Description: "Database changes"},
		}}
		out := rc.Compile()
		Expect(out).To(ContainSubstring("Always gofmt."))
		Expect(out).To(ContainSubstring(`<agent_requestable_rule name="db" path="/w/.cursor/rules/db.mdc">` + "\nDatabase changes"))
		Expect(out).To(ContainSubstring("FetchRules"))
		Expect(out).NotTo(ContainSubstring("Use migrations."))
	})

	It("renders project layouts and the hooks' context, in that order", func() {
		rc := turn.RequestContext{
			Layouts: []turn.Layout{{Root: "/w", Tree: "/w/\n  - go.mod\n"}},
			Hooks:   "The build is red on main.",
		}
		out := rc.Compile()
		Expect(out).To(ContainSubstring(`<project_layout root="/w">`))
		Expect(out).To(HaveSuffix("<hooks_context>\nThe build is red on main.\n</hooks_context>"))
		Expect(strings.Index(out, "<project_layout")).To(BeNumerically("<", strings.Index(out, "<hooks_context>")))
	})

	It("leaves out empty sections, down to nothing for an empty context", func() {
		Expect(turn.RequestContext{}.Compile()).To(BeEmpty())
		Expect(turn.RequestContext{TranscriptsFolder: "/t"}.Compile()).To(HavePrefix("<agent_transcripts>"))
		Expect(turn.RequestContext{UserInfo: turn.UserInfo{OS: "mac"}}.Compile()).To(ContainSubstring("git repository: no"))
	})

	It("escapes attribute values", func() {
		rc := turn.RequestContext{Subagents: []turn.Subagent{{Name: `a"b<c>&`, Description: "d"}}}
		Expect(rc.Compile()).To(ContainSubstring(`name="a&quot;b&lt;c&gt;&amp;"`))
	})
})

var _ = Describe("MCP.Compile", func() {
	m := turn.MCP{
		Servers: []turn.MCPServer{{Name: "db", Identifier: "db-1", Instructions: "Read-only replica; never write.",
			Tools: []turn.MCPTool{{Name: "query", Description: "runs SQL", InputSchema: `{"type":"object"}`}}}},
		Instructions: []turn.MCPInstructions{{Server: "linear", Text: "Prefix issue ids with LIN-."}},
	}

	It("lists each server's tools with their schema and says they are called with CallMcpTool", func() {
		out := m.Compile()
		Expect(out).To(HavePrefix("<mcp_tools>\nTools of the user's MCP servers. Call one with CallMcpTool"))
		Expect(out).To(ContainSubstring(`<mcp_server name="db" identifier="db-1">`))
		Expect(out).To(ContainSubstring("<instructions>\nRead-only replica; never write.\n</instructions>"))
		Expect(out).To(ContainSubstring("<mcp_tool name=\"query\">\nruns SQL\nInput schema: {\"type\":\"object\"}\n</mcp_tool>"))
	})

	It("renders other servers' instructions after the tools", func() {
		out := m.Compile()
		Expect(out).To(HaveSuffix(`<mcp_instructions>` + "\n" + `<mcp_server_instructions server="linear">` + "\nPrefix issue ids with LIN-.\n</mcp_server_instructions>\n</mcp_instructions>"))
	})

	It("compiles to nothing without servers or instructions, and identically when unchanged", func() {
		Expect(turn.MCP{}.Compile()).To(BeEmpty())
		Expect(m.Compile()).To(Equal(m.Compile()))
	})
})

var _ = Describe("Editor.Compile", func() {
	It("lists the open files with the cursor, then recently viewed files that are not open", func() {
		e := turn.Editor{
			Open:   []turn.EditorFile{{Path: "/w/main.go", Lines: 40, CursorLine: 12, CursorText: "\tfmt.Println(x)"}, {Path: "/w/util.go"}},
			Recent: []turn.EditorFile{{Path: "/w/util.go"}, {Path: "/w/go.mod", Lines: 5}},
		}
		Expect(e.Compile()).To(Equal("<editor_state>\nThe user's editor when they sent the message below; files may have changed since." +
			"\nOpen files:\n- /w/main.go (40 lines), cursor on line 12: fmt.Println(x)\n- /w/util.go" +
			"\nRecently viewed files:\n- /w/go.mod (5 lines)\n</editor_state>"))
	})

	It("compiles an empty editor to nothing", func() {
		Expect(turn.Editor{}.Compile()).To(BeEmpty())
	})

	It("caps each list and the whole, and says how many files it left out", func() {
		var e turn.Editor
		for i := range 60 {
			e.Open = append(e.Open, turn.EditorFile{Path: fmt.Sprintf("/w/%s/file%02d.go", strings.Repeat("deep/", 60), i)})
			e.Recent = append(e.Recent, turn.EditorFile{Path: fmt.Sprintf("/w/recent%02d.go", i)})
		}
		out := e.Compile()
		Expect(len(out)).To(BeNumerically("<=", turn.EditorByteLimit))
		Expect(out).To(MatchRegexp(`\[\d+ more open files left out\]`))
		Expect(out).To(MatchRegexp(`\[\d+ more recently viewed files left out\]`))

		e.Open = e.Open[:1]
		Expect(e.Compile()).To(ContainSubstring("[40 more recently viewed files left out]"))
	})

	It("cuts a long cursor line on a character boundary", func() {
		e := turn.Editor{Open: []turn.EditorFile{{Path: "/w/a.txt", CursorLine: 1, CursorText: strings.Repeat("é", 300)}}}
		out := e.Compile()
		Expect(out).To(ContainSubstring("…"))
		Expect(utf8.ValidString(out)).To(BeTrue())
		Expect(len(out)).To(BeNumerically("<", 400))
	})
})

var _ = Describe("turn.RuntimeParts", func() {
	It("renders the turn's selected context and never conversation-level rules or MCP metadata", func() {
		conversationLevel := turn.RequestContext{Rules: []turn.Rule{{Path: "/r.mdc", Content: "CONVERSATION RULE"}}}
		sel := turn.Selection{
			Files:              []turn.File{{Path: "/a.go", Content: "package a"}},
			Code:               []turn.CodeSelection{{Path: "/b.go", StartLine: 3, EndLine: 5, Content: "x := 1"}},
			Terminals:          []turn.Terminal{{Title: "zsh", Content: "$ ls"}},
			TerminalSelections: []string{"selected output"},
			Rules:              []turn.Rule{{Path: "/attached.mdc", Content: "attached rule"}},
			Commands:           []turn.Command{{Name: "review", Content: "review it"}},
			Skills:             []turn.Skill{{Path: "/s/x", Content: "skill body"}},
			ExternalLinks:      []string{"https://example.com"},
			Hooks:              []turn.HookContext{{Event: "beforeSubmitPrompt", Content: "ticket KG-7 is open"}},
			Images:             []llm.Image{{MIMEType: "image/png", BlobID: "b1"}},
		}
		parts := turn.RuntimeParts("please fix", sel)

		Expect(parts).To(HaveLen(2))
		text := parts[0].Text
		for _, want := range []string{`<file path="/a.go">`, `lines="3-5"`, `<terminal title="zsh">`, "selected output",
			"attached rule", `<command name="review">`, "skill body", "External link: https://example.com",
			`<hook_context event="beforeSubmitPrompt">` + "\nticket KG-7 is open"} {
			Expect(text).To(ContainSubstring(want))
		}
		Expect(text).To(HaveSuffix("please fix"))
		Expect(parts[1].Image.BlobID).To(Equal("b1"))
		compiled := conversationLevel.Compile()
		Expect(compiled).To(ContainSubstring("CONVERSATION RULE"))
		Expect(text).NotTo(ContainSubstring("CONVERSATION RULE"))
		Expect(text).NotTo(ContainSubstring("MCPSERVER"))
	})

	It("returns no text part when there is neither text nor selection", func() {
		Expect(turn.RuntimeParts("", turn.Selection{})).To(BeEmpty())
	})
})
