package compile

import agentv1 "keygate/gen/cursor/agent/v1"

// ActionNames lists the registered conversation actions, in match order.
func ActionNames() []string {
	names := make([]string, len(actions))
	for i, a := range actions {
		names[i] = a.name
	}
	return names
}

// MCPContextText is the MCP channel's text of rc, rendering input schemas
// through schemas.
func MCPContextText(rc *agentv1.RequestContext, schemas *Schemas) string {
	c, _ := mcpContext(rc, rc.GetTools(), schemas)
	return c.Text
}
