package agent_test

import (
	"fmt"
	"os"
	"path/filepath"
	"strings"

	. "github.com/onsi/ginkgo/v2"
	. "github.com/onsi/gomega"
	"github.com/onsi/gomega/types"

	"keygate/adapters/cursor/cursortest"
	"keygate/adapters/provider/providertest"
	"keygate/domain/llm"
	agentv1 "keygate/gen/cursor/agent/v1"
)

// side is what the client sends on one side of a switch: the model, the
// mode, the MCP tools of the request context, the editor's state and a
// rule beyond the one every turn sends.
type side struct {
	model string
	mode  agentv1.AgentMode
	mcp   []*agentv1.McpToolDefinition
	ide   *agentv1.InvocationContext_IdeState
	rule  string
}

// cacheSwitch is a conversation of two turns on one side (a tool round,
// then a plain answer) and a third turn on the other side.
type cacheSwitch struct {
	name          string
	before, after side
}

// mcpTool is a direct MCP tool of server, as RequestContext.tools
// declares it.
func mcpTool(server, tool, description string) *agentv1.McpToolDefinition {
	return &agentv1.McpToolDefinition{Name: server + "-" + tool, ProviderIdentifier: server, ToolName: tool, Description: description,
		InputSchemaJson: strp(`{"type":"object","properties":{"title":{"type":"string"}},"required":["title"]}`)}
}

func strp(s string) *string { return &s }

// ideState is the editor with the given visible files, the first focused
// at line.
func ideState(line int32, visible ...string) *agentv1.InvocationContext_IdeState {
	s := &agentv1.InvocationContext_IdeState{}
	for i, p := range visible {
		f := &agentv1.InvocationContext_IdeState_File{Path: "/ws/" + p, RelativePath: strp(p), TotalLines: 40}
		if i == 0 {
			f.CursorPosition = &agentv1.InvocationContext_IdeState_File_CursorPosition{Line: line, Text: "func main() {"}
		}
		s.VisibleFiles = append(s.VisibleFiles, f)
	}
	s.RecentlyViewedFiles = []*agentv1.InvocationContext_IdeState_File{{Path: "/ws/go.mod", RelativePath: strp("go.mod"), TotalLines: 5}}
	return s
}

// switchTurn is a user message of side s with the request context every
// turn of these specs sends.
func switchTurn(messageID, text string, s side) *agentv1.ConversationAction {
	a := cursortest.UserMessageAction(messageID, text)
	um := a.GetUserMessageAction()
	um.UserMessage.Mode = s.mode
	if s.ide != nil {
		um.UserMessage.SelectedContext = &agentv1.SelectedContext{InvocationContext: &agentv1.InvocationContext{
			Data: &agentv1.InvocationContext_IdeState_{IdeState: s.ide}}}
	}
	um.RequestContext = &agentv1.RequestContext{
		Env:   &agentv1.RequestContextEnv{OsVersion: "linux 6.1", Shell: "bash", WorkspacePaths: []string{"/ws"}, TimeZone: "UTC"},
		Rules: []*agentv1.CursorRule{{FullPath: "/ws/.cursor/rules/style.mdc", Content: "Prefer small functions with clear names."}},
		Tools: s.mcp,
	}
	if s.rule != "" {
		um.RequestContext.Rules = append(um.RequestContext.Rules, &agentv1.CursorRule{FullPath: "/ws/.cursor/rules/tests.mdc", Content: s.rule})
	}
	return a
}

// converse plays the switch on a fresh stack of protocol kind and returns
// the provider bodies of the last call before the switch and of the first
// call after it. The first turn reads a.txt, of fileBytes bytes: the
// history's size against the tools'.
func converse(kind llm.ProviderKind, sw cacheSwitch, fileBytes int) (before, after []byte) {
	f := newFixture(kind)
	Expect(os.WriteFile(filepath.Join(f.ws.Root, "a.txt"), []byte(strings.Repeat("alpha beta gamma delta\n", fileBytes/23+1)[:fileBytes]), 0o644)).To(Succeed())
	conv := "conv-" + strings.ReplaceAll(sw.name, " ", "-")
	f.h.reply(providertest.Turn{ID: "r1", Calls: []providertest.Call{call("c_read", "Read", `{"path":"a.txt"}`)}},
		providertest.Turn{ID: "r2", Text: []string{"a.txt holds Greek letters."}})
	st := finished(open(f.c, cursortest.Request(conv, sw.before.model, switchTurn("m1", "What is in a.txt?", sw.before), nil)))
	Expect(st.EndError()).To(BeNil())
	f.h.reply(providertest.Turn{ID: "r3", Text: []string{"Noted."}})
	st = finished(open(f.c.WithRequestID("req-2"), cursortest.Request(conv, sw.before.model, switchTurn("m2", "Remember that.", sw.before), f.c.Checkpoint())))
	Expect(st.EndError()).To(BeNil())
	f.h.reply(providertest.Turn{ID: "r4", Text: []string{"Done."}})
	st = finished(open(f.c.WithRequestID("req-3"), cursortest.Request(conv, sw.after.model, switchTurn("m3", "Carry on.", sw.after), f.c.Checkpoint())))
	Expect(st.EndError()).To(BeNil())
	reqs := f.h.provider.Requests()
	Expect(reqs).To(HaveLen(4))
	return reqs[2].Body, reqs[3].Body
}

var (
	agentMode  = agentv1.AgentMode_AGENT_MODE_AGENT
	planMode   = agentv1.AgentMode_AGENT_MODE_PLAN
	askMode    = agentv1.AgentMode_AGENT_MODE_ASK
	linear     = []*agentv1.McpToolDefinition{mcpTool("linear", "list_issues", "List the team's issues.")}
	twoServers = append([]*agentv1.McpToolDefinition{mcpTool("github", "create_issue", "Open an issue.")}, linear...)
)

// Tools every mode a conversation switches among shares (without web
// tools, which the harness has no backend for: ask offers no more), those
// agent and plan share on top (shell, background shells, Await, Task), and
// the tool counts of agent and plan.
const sharedHead, agentPlanHead, agentTools, planTools = 13, 18, 24, 19

// afterTools names a protocol's first prompt segment after the tools of a
// request without earlier messages in between: the system prompt on
// Anthropic (tools come first), the first message after the system
// message on Chat, the first input item on Responses.
var afterTools = map[llm.ProviderKind]string{
	llm.ProviderAnthropic: "system[0]", llm.ProviderOpenAIChat: "messages[1]", llm.ProviderOpenAIResponses: "input[0]",
}

// extends: the switch appends to the prompt and changes nothing before,
// and what it appends holds each of added and none of the channels in
// unsent (their text did not change, so they are not sent again).
func extends(added []string, unsent ...string) func(llm.ProviderKind, []providertest.Segment, providertest.Retention) {
	return func(_ llm.ProviderKind, next []providertest.Segment, r providertest.Retention) {
		Expect(r.Extends()).To(BeTrue(), "changed at %s", r.Changed)
		Expect(r.Kept).To(Equal(r.Total))
		text := appended(next, r)
		Expect(text).To(ContainSubstrings(added...))
		for _, u := range unsent {
			Expect(text).NotTo(ContainSubstring(u))
		}
	}
}

// The opening tags of the channels' messages.
const envTag, mcpTag, modeTag, editorTag = "<user_info>", "<mcp_tools>", "<mode>", "<editor_state>"

// appended is the text of the next prompt's segments past those it shares
// with the previous one.
func appended(next []providertest.Segment, r providertest.Retention) string {
	var b strings.Builder
	for _, s := range next[r.Common:] {
		b.Write(s.Bytes)
	}
	return strings.NewReplacer(`\u003c`, "<", `\u003e`, ">").Replace(b.String())
}

// ContainSubstrings succeeds when a string contains each of subs.
func ContainSubstrings(subs ...string) types.GomegaMatcher {
	var ms []types.GomegaMatcher
	for _, s := range subs {
		ms = append(ms, ContainSubstring(s))
	}
	return And(ms...)
}

// switchesTools: the switch from a mode of previous tools to one of next
// tools, which share the first shared, changes the tools there; every
// earlier tool, and on OpenAI protocols the instructions before the tools,
// stay byte for byte. When one mode's tools are the other's first ones,
// the first segment after the shorter list is where the prompts part. The
// new mode's paragraph comes with the turn.
func switchesTools(shared, previous, next int, mode string) func(llm.ProviderKind, []providertest.Segment, providertest.Retention) {
	return func(kind llm.ProviderKind, segs []providertest.Segment, r providertest.Retention) {
		at := func(n int) string {
			if shared < n {
				return fmt.Sprintf("tools[%d]", shared)
			}
			return afterTools[kind]
		}
		Expect(r.Changed).To(Equal(at(previous)))
		Expect(r.First).To(Equal(at(next)))
		Expect(appended(segs, r)).To(ContainSubstring("<mode>\\nMode: " + mode + "."))
	}
}

// cacheSwitches are the switches a user makes mid-conversation, each with
// what it may change of the prompt.
var cacheSwitches = []struct {
	cacheSwitch
	check func(llm.ProviderKind, []providertest.Segment, providertest.Retention)
}{
	{cacheSwitch{"nothing", side{model: "kg-model"}, side{model: "kg-model"}}, extends([]string{"Carry on."}, envTag, mcpTag, modeTag, editorTag)},
	{cacheSwitch{"model twin", side{model: "kg-model"}, side{model: "kg-twin"}}, extends([]string{"Carry on."}, envTag, mcpTag, modeTag, editorTag)},
	{cacheSwitch{"mcp added", side{model: "kg-model", mcp: linear}, side{model: "kg-model", mcp: twoServers}},
		extends([]string{mcpTag, "create_issue", "list_issues"}, envTag, modeTag, editorTag)},
	{cacheSwitch{"open files", side{model: "kg-model", ide: ideState(3, "main.go")}, side{model: "kg-model", ide: ideState(12, "util.go", "main.go")}},
		extends([]string{editorTag, "/ws/util.go (40 lines), cursor on line 12"}, envTag, mcpTag, modeTag)},
	{cacheSwitch{"rule added", side{model: "kg-model"}, side{model: "kg-model", rule: "Write the test first."}},
		extends([]string{envTag, "Write the test first."}, mcpTag, modeTag, editorTag)},
	{cacheSwitch{"agent to plan", side{model: "kg-model", mode: agentMode}, side{model: "kg-model", mode: planMode}}, switchesTools(agentPlanHead, agentTools, planTools, "plan")},
	{cacheSwitch{"plan to agent", side{model: "kg-model", mode: planMode}, side{model: "kg-model", mode: agentMode}}, switchesTools(agentPlanHead, planTools, agentTools, "agent")},
	{cacheSwitch{"agent to ask", side{model: "kg-model", mode: agentMode}, side{model: "kg-model", mode: askMode}}, switchesTools(sharedHead, agentTools, sharedHead, "ask")},
	{cacheSwitch{"ask to agent", side{model: "kg-model", mode: askMode}, side{model: "kg-model", mode: agentMode}}, switchesTools(sharedHead, sharedHead, agentTools, "agent")},
	{cacheSwitch{"plan to ask", side{model: "kg-model", mode: planMode}, side{model: "kg-model", mode: askMode}}, switchesTools(sharedHead, planTools, sharedHead, "ask")},
	{cacheSwitch{"ask to plan", side{model: "kg-model", mode: askMode}, side{model: "kg-model", mode: planMode}}, switchesTools(sharedHead, sharedHead, planTools, "plan")},
}

// The share of the prompt each switch keeps, on every protocol, for a
// short conversation (a.txt of 6 bytes: the tools are most of the prompt)
// and a longer one (a.txt of 24 KiB: the history is). The share is the
// bytes of the previous prompt, in the provider's prompt order, that the
// next prompt repeats from its start. Run with
//
//	go test ./adapters/cursor/agent -v -ginkgo.v -ginkgo.focus 'Prompt cache across switches' | grep CACHE
//
// to print the table.
var _ = Describe("Prompt cache across switches", func() {
	for _, kind := range kinds {
		for _, sw := range cacheSwitches {
			for _, size := range []int{6, 24 << 10} {
				It(fmt.Sprintf("%s, %s (a.txt of %d bytes): changes only what the switch changes, every earlier byte stays", kind, sw.name, size), func() {
					before, after := converse(kind, sw.cacheSwitch, size)
					prev, err := providertest.PromptSegments(kind, before)
					Expect(err).NotTo(HaveOccurred())
					next, err := providertest.PromptSegments(kind, after)
					Expect(err).NotTo(HaveOccurred())
					r := providertest.Retained(prev, next)
					fmt.Fprintf(GinkgoWriter, "CACHE | %-16s | %-13s | %6d | %6d / %6d | %5.1f%% | changed %-12s | first new %s\n",
						kind, sw.name, size, r.Kept, r.Total, 100*r.Share(), r.Changed, r.First)
					sw.check(kind, next, r)
				})
			}
		}
	}
})
