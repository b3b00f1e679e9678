package tools

import agentv1 "keygate/gen/cursor/agent/v1"

// readTool reads a file on the client.
var readTool = &tool{
	name:   "Read",
	modes:  everyMode,
	runs:   onClient,
	start:  (*Call).startRead,
	onExec: (*Call).onRead,
}

func (c *Call) startRead() (Action, error) {
	path, err := c.required("path", "file_path", "filePath")
	if err != nil {
		return Action{}, err
	}
	args := &agentv1.ReadArgs{Path: path, ToolCallId: c.call.CallID}
	targs := &agentv1.ReadToolArgs{Path: path}
	if n, ok := c.num("offset"); ok {
		o := int32(n)
		args.Offset, targs.Offset = &o, &o
	}
	if n, ok := c.num("limit"); ok && n > 0 {
		l, tl := uint32(n), int32(n)
		args.Limit, targs.Limit = &l, &tl
	}
	c.card.Tool = &agentv1.ToolCall_ReadToolCall{ReadToolCall: &agentv1.ReadToolCall{Args: targs}}
	return c.exec(func(m *agentv1.ExecServerMessage) { m.Message = &agentv1.ExecServerMessage_ReadArgs{ReadArgs: args} }), nil
}

func (c *Call) onRead(m *agentv1.ExecClientMessage) Action {
	r := m.GetReadResult()
	if r == nil {
		return c.unexpected(m)
	}
	tc := c.card.GetReadToolCall()
	s := r.GetSuccess()
	if s == nil {
		msg := describe("read", r)
		tc.Result = &agentv1.ReadToolResult{Result: &agentv1.ReadToolResult_Error{Error: &agentv1.ReadToolError{ErrorMessage: msg}}}
		return c.fail(msg)
	}
	tc.Result = &agentv1.ReadToolResult{Result: &agentv1.ReadToolResult_Success{Success: &agentv1.ReadToolSuccess{
		Path: s.GetPath(), TotalLines: uint32(s.GetTotalLines()), FileSize: uint32(s.GetFileSize()),
		IsEmpty: s.GetContent() == "", Output: &agentv1.ReadToolSuccess_Content{Content: s.GetContent()},
	}}}
	if s.GetContent() == "" {
		return c.finish("File is empty.", false)
	}
	return c.finish(s.GetContent(), false)
}
