package tools

import agentv1 "keygate/gen/cursor/agent/v1"

// mcpAuthTool asks the user to sign in to an MCP server that needs it (the
// client runs the server's sign-in). CallMcpTool with tool name mcp_auth
// is the same request.
var mcpAuthTool = &tool{
	name:  "McpAuth",
	modes: userModes,
	runs:  withUser,
	open:  func() handler { return new(mcpAuth) },
}

// mcpAuth handles one McpAuth call; it keeps nothing between steps (the card holds
// what a later step reads).
type mcpAuth struct{}

// mcpAuthToolName is the tool name of an MCP server's sign-in.
const mcpAuthToolName = "mcp_auth"

func (*mcpAuth) start(c *call) (Action, error) {
	server, err := c.required("server", "server_identifier")
	if err != nil {
		return Action{}, err
	}
	for _, d := range c.env.Servers {
		if d.GetServerName() == server && d.GetServerIdentifier() != "" {
			server = d.GetServerIdentifier()
		}
	}
	args := &agentv1.McpAuthArgs{ServerIdentifier: server, ToolCallId: c.id}
	c.card.Tool = &agentv1.ToolCall_McpAuthToolCall{McpAuthToolCall: &agentv1.McpAuthToolCall{Args: args}}
	if c.env.NoMCPAuth {
		msg := "this Cursor client cannot sign in to MCP servers; ask the user to sign in to " + server + " in Cursor's MCP settings"
		c.card.GetMcpAuthToolCall().Result = &agentv1.McpAuthResult{Result: &agentv1.McpAuthResult_Error{Error: &agentv1.McpAuthError{Error: msg}}}
		return fail(msg), nil
	}
	return Action{Query: &agentv1.InteractionQuery{Query: &agentv1.InteractionQuery_McpAuthRequestQuery{
		McpAuthRequestQuery: &agentv1.McpAuthRequestQuery{Args: args}}}}, nil
}

func (*mcpAuth) onInteraction(c *call, r *agentv1.InteractionResponse) Action {
	a := r.GetMcpAuthRequestResponse()
	if a == nil {
		return fail("unexpected interaction response")
	}
	tc := c.card.GetMcpAuthToolCall()
	server := tc.GetArgs().GetServerIdentifier()
	if a.GetApproved() == nil {
		reason := a.GetRejected().GetReason()
		tc.Result = &agentv1.McpAuthResult{Result: &agentv1.McpAuthResult_Rejected{Rejected: &agentv1.McpAuthRejected{Reason: reason}}}
		return finish("The user did not sign in to "+server+". "+reason, false)
	}
	tc.Result = &agentv1.McpAuthResult{Result: &agentv1.McpAuthResult_Success{Success: &agentv1.McpAuthSuccess{ServerIdentifier: server}}}
	return finish("The user signed in to "+server+". Its tools become available with the user's next message; "+
		"GetMcpTools lists them now.", false)
}
