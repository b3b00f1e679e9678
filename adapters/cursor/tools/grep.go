package tools

import agentv1 "keygate/gen/cursor/agent/v1"

// grepTool searches file contents on the client.
var grepTool = &tool{
	name:  "Grep",
	modes: everyMode,
	runs:  onClient,
	open:  func() handler { return new(grep) },
}

// grep handles one Grep call; it keeps nothing between steps (the card holds
// what a later step reads).
type grep struct{}

func (*grep) start(c *call) (Action, error) {
	pattern, err := c.required("pattern")
	if err != nil {
		return Action{}, err
	}
	args := &agentv1.GrepArgs{Pattern: pattern, ToolCallId: c.id}
	args.Path = optStr(c.str("path"))
	args.Glob = optStr(c.str("glob"))
	args.OutputMode = optStr(c.str("output_mode"))
	args.Type = optStr(c.str("type"))
	args.ContextAfter = c.optInt("-A")
	args.ContextBefore = c.optInt("-B")
	args.Context = c.optInt("-C")
	args.HeadLimit = c.optInt("head_limit")
	args.Offset = c.optInt("offset")
	if c.flag("-i") {
		t := true
		args.CaseInsensitive = &t
	}
	if c.flag("multiline") {
		t := true
		args.Multiline = &t
	}
	c.card.Tool = &agentv1.ToolCall_GrepToolCall{GrepToolCall: &agentv1.GrepToolCall{Args: args}}
	return c.exec(func(m *agentv1.ExecServerMessage) { m.Message = &agentv1.ExecServerMessage_GrepArgs{GrepArgs: args} }), nil
}

func (*grep) onExec(c *call, m *agentv1.ExecClientMessage) Action {
	r := m.GetGrepResult()
	if r == nil {
		return c.unexpected(m)
	}
	c.card.GetGrepToolCall().Result = r
	s := r.GetSuccess()
	if s == nil {
		return fail("grep: " + r.GetError().GetError())
	}
	return finish(renderGrep(s), false)
}
