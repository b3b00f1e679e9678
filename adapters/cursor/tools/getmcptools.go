package tools

import (
	"fmt"
	"regexp"
	"strings"

	agentv1 "keygate/gen/cursor/agent/v1"
)

// getMcpToolsTool lists the client's MCP servers with their state,
// instructions and tools now (the request context shows them as they were
// when the message was sent); CallMcpTool calls a listed tool.
var getMcpToolsTool = &tool{
	name:  "GetMcpTools",
	modes: everyMode,
	runs:  onClient,
	open:  func() handler { return new(getMcpTools) },
}

// getMcpTools handles one GetMcpTools call; it keeps nothing between steps (the card holds
// what a later step reads).
type getMcpTools struct{}

func (*getMcpTools) start(c *call) (Action, error) {
	args := &agentv1.GetMcpToolsArgs{Server: optStr(c.str("server")), ToolName: optStr(c.str("tool_name", "toolName")),
		Pattern: optStr(c.str("pattern")), ToolCallId: c.id}
	if args.Pattern != nil {
		if _, err := regexp.Compile("(?i)" + args.GetPattern()); err != nil {
			return Action{}, fmt.Errorf("%s: pattern: %w", c.name, err)
		}
	}
	c.card.Tool = &agentv1.ToolCall_GetMcpToolsToolCall{GetMcpToolsToolCall: &agentv1.GetMcpToolsToolCall{Args: args}}
	state := &agentv1.McpStateExecArgs{}
	if args.Server != nil {
		state.ServerIdentifiers = []string{args.GetServer()}
	}
	accept := false // a state exec takes no hook contexts
	return Action{Exec: &agentv1.ExecServerMessage{ExecId: c.id, AcceptHookAdditionalContexts: &accept,
		Message: &agentv1.ExecServerMessage_McpStateExecArgs{McpStateExecArgs: state}}}, nil
}

func (*getMcpTools) onExec(c *call, m *agentv1.ExecClientMessage) Action {
	r := m.GetMcpStateExecResult()
	if r == nil {
		return c.unexpected(m)
	}
	tc := c.card.GetGetMcpToolsToolCall()
	fail := func(msg string) Action {
		tc.Result = &agentv1.GetMcpToolsAgentResult{Result: &agentv1.GetMcpToolsAgentResult_Error{Error: &agentv1.GetMcpToolsError{Error: msg}}}
		return fail(msg)
	}
	switch x := r.GetResult().(type) {
	case *agentv1.McpStateExecResult_Success:
		text := renderMCPState(x.Success.GetServers(), tc.GetArgs())
		tc.Result = &agentv1.GetMcpToolsAgentResult{Result: &agentv1.GetMcpToolsAgentResult_Success{Success: &agentv1.GetMcpToolsSuccess{Content: text}}}
		return finish(text, false)
	case *agentv1.McpStateExecResult_Rejected:
		return fail("the user declined listing MCP tools. " + x.Rejected.GetReason())
	case *agentv1.McpStateExecResult_Error:
		return fail("listing MCP tools failed: " + x.Error.GetError())
	}
	return fail(describe("MCP state", r))
}

// renderMCPState lists servers and their tools, keeping the tools the
// arguments ask for (a tool name, a pattern over names and descriptions).
func renderMCPState(servers []*agentv1.McpStateServer, a *agentv1.GetMcpToolsArgs) string {
	var pattern *regexp.Regexp
	if a.Pattern != nil {
		pattern = regexp.MustCompile("(?i)" + a.GetPattern())
	}
	var b strings.Builder
	for _, s := range servers {
		if a.Server != nil && a.GetServer() != s.GetServerIdentifier() && a.GetServer() != s.GetServerName() {
			continue
		}
		fmt.Fprintf(&b, "<mcp_server name=%q identifier=%q", s.GetServerName(), s.GetServerIdentifier())
		if s.GetStatus() != "" {
			fmt.Fprintf(&b, " status=%q", s.GetStatus())
		}
		b.WriteString(">\n")
		for _, in := range s.GetInstructions() {
			if in.GetInstructions() != "" {
				b.WriteString("<instructions>\n" + in.GetInstructions() + "\n</instructions>\n")
			}
		}
		for _, t := range s.GetTools() {
			name := t.GetToolName()
			if name == "" {
				name = t.GetName()
			}
			if a.ToolName != nil && a.GetToolName() != name && a.GetToolName() != t.GetName() {
				continue
			}
			if pattern != nil && !pattern.MatchString(name) && !pattern.MatchString(t.GetDescription()) {
				continue
			}
			fmt.Fprintf(&b, "<tool name=%q>\n%s\n", name, t.GetDescription())
			if schema := t.GetInputSchemaJson(); schema != "" {
				b.WriteString("Input schema: " + schema + "\n")
			}
			b.WriteString("</tool>\n")
		}
		b.WriteString("</mcp_server>\n")
	}
	if b.Len() == 0 {
		return "No MCP servers match."
	}
	return b.String()
}
