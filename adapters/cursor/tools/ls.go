package tools

import (
	"strings"

	agentv1 "keygate/gen/cursor/agent/v1"
)

// lsTool lists a directory on the client.
var lsTool = &tool{
	name:  "Ls",
	modes: everyMode,
	runs:  onClient,
	open:  func() handler { return new(ls) },
}

// ls handles one Ls call; it keeps nothing between steps (the card holds
// what a later step reads).
type ls struct{}

func (*ls) start(c *call) (Action, error) {
	path, err := c.required("path", "target_directory")
	if err != nil {
		return Action{}, err
	}
	args := &agentv1.LsArgs{Path: path, ToolCallId: c.id}
	if ig, ok := c.args["ignore"].([]any); ok {
		for _, v := range ig {
			if s, ok := v.(string); ok {
				args.Ignore = append(args.Ignore, s)
			}
		}
	}
	c.card.Tool = &agentv1.ToolCall_LsToolCall{LsToolCall: &agentv1.LsToolCall{Args: args}}
	return c.exec(func(m *agentv1.ExecServerMessage) { m.Message = &agentv1.ExecServerMessage_LsArgs{LsArgs: args} }), nil
}

func (*ls) onExec(c *call, m *agentv1.ExecClientMessage) Action {
	r := m.GetLsResult()
	if r == nil {
		return c.unexpected(m)
	}
	c.card.GetLsToolCall().Result = r
	if s := r.GetSuccess(); s != nil {
		var b strings.Builder
		renderTree(&b, s.GetDirectoryTreeRoot(), "")
		return finish(b.String(), false)
	}
	return fail(describe("ls", r))
}
