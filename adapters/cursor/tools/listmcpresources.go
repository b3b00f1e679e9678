package tools

import (
	"fmt"
	"strings"

	agentv1 "keygate/gen/cursor/agent/v1"
)

// listMcpResourcesTool lists the resources (files, records, documents) the
// client's MCP servers offer.
var listMcpResourcesTool = &tool{
	name:  "ListMcpResources",
	modes: everyMode,
	runs:  onClient,
	open:  func() handler { return new(listMcpResources) },
}

// listMcpResources handles one ListMcpResources call; it keeps nothing between steps (the card holds
// what a later step reads).
type listMcpResources struct{}

func (*listMcpResources) start(c *call) (Action, error) {
	args := &agentv1.ListMcpResourcesExecArgs{Server: optStr(c.str("server"))}
	c.card.Tool = &agentv1.ToolCall_ListMcpResourcesToolCall{ListMcpResourcesToolCall: &agentv1.ListMcpResourcesToolCall{Args: args}}
	return c.exec(func(m *agentv1.ExecServerMessage) {
		m.Message = &agentv1.ExecServerMessage_ListMcpResourcesExecArgs{ListMcpResourcesExecArgs: args}
	}), nil
}

func (*listMcpResources) onExec(c *call, m *agentv1.ExecClientMessage) Action {
	r := m.GetListMcpResourcesExecResult()
	if r == nil {
		return c.unexpected(m)
	}
	c.card.GetListMcpResourcesToolCall().Result = r
	switch x := r.GetResult().(type) {
	case *agentv1.ListMcpResourcesExecResult_Success:
		if len(x.Success.GetResources()) == 0 {
			return finish("No MCP resources.", false)
		}
		var b strings.Builder
		for _, res := range x.Success.GetResources() {
			fmt.Fprintf(&b, "- %s (server %s", res.GetUri(), res.GetServer())
			if res.GetName() != "" {
				fmt.Fprintf(&b, ", name %q", res.GetName())
			}
			if res.GetMimeType() != "" {
				b.WriteString(", " + res.GetMimeType())
			}
			b.WriteString(")")
			if res.GetDescription() != "" {
				b.WriteString(": " + res.GetDescription())
			}
			b.WriteString("\n")
		}
		return finish(b.String(), false)
	case *agentv1.ListMcpResourcesExecResult_Rejected:
		return finish("The user declined listing MCP resources. "+x.Rejected.GetReason(), false)
	case *agentv1.ListMcpResourcesExecResult_Error:
		return fail("listing MCP resources failed: " + x.Error.GetError())
	}
	return fail(describe("list MCP resources", r))
}
