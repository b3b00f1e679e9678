package tools

import (
	"fmt"
	"strings"

	"google.golang.org/protobuf/types/known/structpb"

	agentv1 "keygate/gen/cursor/agent/v1"
)

// callMcpTool calls a tool of an MCP server the request context describes,
// by server and tool name, on the client: a server of the meta-tool
// options (McpDescriptor) or one of the client's own MCP tools
// (McpToolDefinition, from RequestContext.tools or the run request). Both
// kinds are listed in the request context's MCP channel rather than among
// the tools, so that adding a server never changes the tools that lead
// every prompt.
var callMcpTool = &tool{
	name:  "CallMcpTool",
	modes: everyMode,
	runs:  onClient,
	open:  func() handler { return new(callMcp) },
}

// callMcp handles one CallMcpTool call.
type callMcp struct{ mcpResult }

// route hands a server's sign-in to McpAuth: it is an interaction with the
// user, not a tool call on the server.
func (*callMcp) route(c *call) *tool {
	if c.str("server") != "" && c.str("toolName", "tool_name") == mcpAuthToolName {
		return mcpAuthTool
	}
	return nil
}

// directMCPTool is a tool of the client's own MCP servers called by its
// own name. Keygate lists those tools in the request context for
// CallMcpTool and no longer offers them by name, but a model that saw such
// a call in an older conversation may still make one; it is carried out
// the same way. It is not in the registry: its name comes from the client.
var directMCPTool = &tool{
	name: "MCP",
	runs: onClient,
	open: func() handler { return new(clientMCP) },
}

// clientMCP is a call of one of the client's own MCP tools by its name.
type clientMCP struct{ mcpResult }

// start sends the call: the model's arguments as they are.
func (*clientMCP) start(c *call) (Action, error) {
	d := directMCP(c)
	args, err := structArgs(c.args)
	if err != nil {
		return Action{}, err
	}
	return mcpExec(c, &agentv1.McpArgs{Name: d.GetName(), Args: args, ToolCallId: c.id,
		ProviderIdentifier: d.GetProviderIdentifier(), ToolName: d.GetToolName()}), nil
}

// mcpResult completes an MCP tool call with the client's result: its text
// for the model, the result on the card.
type mcpResult struct{}

// directMCP returns the client's MCP tool the call names, if any.
func directMCP(c *call) *agentv1.McpToolDefinition {
	for _, d := range c.env.MCP {
		if Canonical(d.GetName()) == Canonical(c.name) {
			return d
		}
	}
	return nil
}

// start resolves CallMcpTool{server, toolName, arguments} against
// the servers the client described; an unknown server or tool is a tool
// error without asking the client.
func (*callMcp) start(c *call) (Action, error) {
	server, err := c.required("server")
	if err != nil {
		return Action{}, err
	}
	tool, err := c.required("toolName", "tool_name")
	if err != nil {
		return Action{}, err
	}
	for _, d := range c.env.Servers {
		if d.GetServerIdentifier() != server && d.GetServerName() != server {
			continue
		}
		for _, t := range d.GetTools() {
			if t.GetToolName() != tool {
				continue
			}
			raw, _ := c.args["arguments"].(map[string]any)
			args, err := structArgs(raw)
			if err != nil {
				return Action{}, err
			}
			provider := d.GetServerName()
			if provider == "" {
				provider = d.GetServerIdentifier()
			}
			return mcpExec(c, &agentv1.McpArgs{Name: d.GetServerIdentifier() + "-" + tool, Args: args, ToolCallId: c.id,
				ProviderIdentifier: provider, ToolName: tool, ServerIdentifier: d.GetServerIdentifier()}), nil
		}
	}
	if d := directByServer(c, server, tool); d != nil {
		raw, _ := c.args["arguments"].(map[string]any)
		args, err := structArgs(raw)
		if err != nil {
			return Action{}, err
		}
		return mcpExec(c, &agentv1.McpArgs{Name: d.GetName(), Args: args, ToolCallId: c.id,
			ProviderIdentifier: d.GetProviderIdentifier(), ToolName: DirectToolName(d)}), nil
	}
	return Action{}, fmt.Errorf("MCP tool not found: server %q, tool %q; the MCP tools are listed in the request context (GetMcpTools lists them as they are now)", server, tool)
}

// DirectToolName is the name a client's own MCP tool goes by on its
// server: its tool name, else its full name.
func DirectToolName(d *agentv1.McpToolDefinition) string {
	if d.GetToolName() != "" {
		return d.GetToolName()
	}
	return d.GetName()
}

// directByServer returns the client's own MCP tool of server named tool:
// by its tool name or its full name, on the server its provider
// identifier names (any server when it names none).
func directByServer(c *call, server, tool string) *agentv1.McpToolDefinition {
	for _, d := range c.env.MCP {
		if p := d.GetProviderIdentifier(); p != "" && p != server {
			continue
		}
		if DirectToolName(d) == tool || d.GetName() == tool {
			return d
		}
	}
	return nil
}

func mcpExec(c *call, args *agentv1.McpArgs) Action {
	c.card.Tool = &agentv1.ToolCall_McpToolCall{McpToolCall: &agentv1.McpToolCall{Args: args}}
	return c.exec(func(m *agentv1.ExecServerMessage) { m.Message = &agentv1.ExecServerMessage_McpArgs{McpArgs: args} })
}

func (mcpResult) onExec(c *call, m *agentv1.ExecClientMessage) Action {
	r := m.GetMcpResult()
	if r == nil {
		if m.GetMessage() == nil {
			return Action{}
		}
		return fail("unexpected exec result for an MCP tool")
	}
	tc := c.card.GetMcpToolCall()
	s := r.GetSuccess()
	if s == nil {
		msg := r.GetError().GetError()
		if msg == "" {
			msg = describe("mcp", r)
		}
		tc.Result = &agentv1.McpToolResult{Result: &agentv1.McpToolResult_Error{Error: &agentv1.McpToolError{Error: msg}}}
		return fail(msg)
	}
	tc.Result = &agentv1.McpToolResult{Result: &agentv1.McpToolResult_Success{Success: s}}
	var parts []string
	for _, item := range s.GetContent() {
		if t := item.GetText(); t != nil {
			parts = append(parts, t.GetText())
		} else if item.GetImage() != nil {
			parts = append(parts, "[image]")
		}
	}
	return finish(strings.Join(parts, "\n"), s.GetIsError())
}

func structArgs(m map[string]any) (map[string]*structpb.Value, error) {
	out := make(map[string]*structpb.Value, len(m))
	for k, v := range m {
		pv, err := structpb.NewValue(v)
		if err != nil {
			return nil, fmt.Errorf("MCP argument %q: %w", k, err)
		}
		out[k] = pv
	}
	return out, nil
}
