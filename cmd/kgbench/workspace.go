package main

import (
	"fmt"
	"strings"

	"google.golang.org/protobuf/proto"
	"google.golang.org/protobuf/types/known/structpb"

	"keygate/adapters/cursor/cursortest"
	agentv1 "keygate/gen/cursor/agent/v1"
)

// workspaceContext is the request context a Cursor client sends with every
// run request of a mid-sized repository, shaped as docs/cursor-protocol.md
// ("The request context") describes it: the environment (OS, shell,
// workspace, terminals, transcripts and notes folders), the git status,
// the project layout (a tree of a few hundred files), rules that always
// apply and rules the agent may fetch, skills, and two MCP servers with
// their tools' input schemas. Every turn of the scenario sends the same
// one, as a user working in one workspace does.
func workspaceContext() *agentv1.RequestContext {
	const root = "/Users/dev/src/acme-platform"
	const cursorDir = "/Users/dev/.cursor/projects/Users-dev-src-acme-platform"
	artifacts := cursorDir + "/artifacts"
	rc := &agentv1.RequestContext{
		Env: &agentv1.RequestContextEnv{
			OsVersion: "darwin 24.6.0", WorkspacePaths: []string{root}, Shell: "zsh", TimeZone: "Europe/Berlin",
			TerminalsFolder: cursorDir + "/terminals", AgentTranscriptsFolder: cursorDir + "/agent-transcripts",
			AgentSharedNotesFolder: cursorDir + "/notes", AgentConversationNotesFolder: cursorDir + "/conversation-notes",
			ProjectFolder: cursorDir, ArtifactsFolder: &artifacts, ProcessWorkingDirectory: proto.String(root),
			SandboxSupported: proto.Bool(true), SandboxEnabled: true,
		},
		GitRepos: []*agentv1.GitRepoInfo{{Path: root, BranchName: "feature/billing-export", RemoteUrl: proto.String("git@github.com:acme/platform.git"),
			Status: " M services/billing/export.go\n M services/billing/export_test.go\n?? docs/billing/export.md\n"}},
		ProjectLayouts:     []*agentv1.LsDirectoryTreeNode{layout(root)},
		McpMetaToolOptions: &agentv1.McpMetaToolOptions{Enabled: true},
		EnvInfoComplete:    proto.Bool(true), RulesInfoComplete: proto.Bool(true), McpInfoComplete: proto.Bool(true),
		GitStatusInfoComplete: proto.Bool(true), WebSearchEnabled: proto.Bool(true), WebFetchEnabled: proto.Bool(true),
	}
	global := &agentv1.CursorRuleType{Type: &agentv1.CursorRuleType_Global{Global: &agentv1.CursorRuleTypeGlobal{}}}
	for i, topic := range []string{"go-style", "errors", "testing", "sql", "security", "reviews"} {
		rc.Rules = append(rc.Rules, &agentv1.CursorRule{FullPath: fmt.Sprintf("%s/.cursor/rules/%s.mdc", root, topic), Type: global,
			Content: ruleText(topic, 1200+300*i)})
	}
	for _, topic := range []string{"billing", "migrations", "frontend", "release"} {
		rc.Rules = append(rc.Rules, &agentv1.CursorRule{FullPath: fmt.Sprintf("%s/.cursor/rules/%s.mdc", root, topic),
			Type:    &agentv1.CursorRuleType{Type: &agentv1.CursorRuleType_AgentFetched{AgentFetched: &agentv1.CursorRuleTypeAgentFetched{Description: "How we work on " + topic}}},
			Content: ruleText(topic, 2000)})
	}
	for _, s := range []string{"release-notes", "db-migration", "incident-review"} {
		rc.AgentSkills = append(rc.AgentSkills, &agentv1.AgentSkill{FullPath: root + "/.cursor/skills/" + s + "/SKILL.md",
			Description: "Use when asked for " + s, Content: ruleText(s, 800)})
	}
	for _, server := range []string{"linear", "postgres"} {
		rc.McpInstructions = append(rc.McpInstructions, &agentv1.McpInstructions{ServerName: server, ServerIdentifier: server,
			Instructions: ruleText(server+" instructions", 400)})
		for t := range 8 {
			schema, _ := structpb.NewStruct(map[string]any{"type": "object", "required": []any{"query"}, "properties": map[string]any{
				"query": map[string]any{"type": "string", "description": "What to look for in " + server},
				"limit": map[string]any{"type": "integer", "description": "At most this many results", "minimum": 1, "maximum": 100},
				"team":  map[string]any{"type": "string", "description": "The team whose items are read"},
			}})
			name := fmt.Sprintf("%s_tool_%d", server, t)
			rc.Tools = append(rc.Tools, &agentv1.McpToolDefinition{Name: server + "-" + name, ProviderIdentifier: server, ToolName: name,
				Description: ruleText(name, 200), InputSchema: structpb.NewStructValue(schema)})
		}
	}
	return rc
}

// layout is the project tree a workspace reports: 12 top-level packages
// of 4 directories with 8 files each (about 400 files).
func layout(root string) *agentv1.LsDirectoryTreeNode {
	top := &agentv1.LsDirectoryTreeNode{AbsPath: root, ChildrenWereProcessed: true,
		ChildrenFiles: []*agentv1.LsDirectoryTreeNode_File{{Name: "go.mod"}, {Name: "go.sum"}, {Name: "README.md"}, {Name: "Makefile"}, {Name: ".gitignore"}}}
	for _, pkg := range []string{"api", "billing", "catalog", "cmd", "console", "deploy", "docs", "identity", "internal", "notify", "search", "storage"} {
		p := &agentv1.LsDirectoryTreeNode{AbsPath: root + "/" + pkg, ChildrenWereProcessed: true}
		for _, sub := range []string{"handler", "model", "store", "testdata"} {
			d := &agentv1.LsDirectoryTreeNode{AbsPath: p.AbsPath + "/" + sub, ChildrenWereProcessed: true, NumFiles: 8}
			for f := range 8 {
				d.ChildrenFiles = append(d.ChildrenFiles, &agentv1.LsDirectoryTreeNode_File{Name: fmt.Sprintf("%s_%s_%d.go", pkg, sub, f)})
			}
			p.ChildrenDirs = append(p.ChildrenDirs, d)
		}
		p.NumFiles = 32
		top.ChildrenDirs = append(top.ChildrenDirs, p)
	}
	return top
}

// ruleText is n bytes of plausible rule prose about topic.
func ruleText(topic string, n int) string {
	var b strings.Builder
	for i := 0; b.Len() < n; i++ {
		fmt.Fprintf(&b, "- When you change %s code, rule %d: keep the change small, explain why in the commit, run the package's tests and check the error paths.\n", topic, i)
	}
	return b.String()[:n]
}

// workspaceTurn is the first run request of a fresh conversation, tagged
// id, with the workspace's request context and the editor's state.
func workspaceTurn(id, model string, rc *agentv1.RequestContext) *agentv1.AgentClientMessage {
	action := cursortest.UserMessageAction(id, "question "+id+": where is the billing export's retry policy decided?")
	um := action.GetUserMessageAction()
	um.RequestContext = rc
	um.UserMessage.Mode = agentv1.AgentMode_AGENT_MODE_AGENT
	return cursortest.Request("conv-"+id, model, action, nil)
}
