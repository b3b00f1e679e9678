package tools

import agentv1 "keygate/gen/cursor/agent/v1"

// deleteTool deletes a file on the client.
var deleteTool = &tool{
	name:  "Delete",
	modes: editingModes,
	runs:  onClient,
	open:  func() handler { return new(deleteFile) },
}

// deleteFile handles one Delete call; it keeps nothing between steps (the card holds
// what a later step reads).
type deleteFile struct{}

func (*deleteFile) start(c *call) (Action, error) {
	path, err := c.required("path", "file_path")
	if err != nil {
		return Action{}, err
	}
	args := &agentv1.DeleteArgs{Path: path, ToolCallId: c.id}
	c.card.Tool = &agentv1.ToolCall_DeleteToolCall{DeleteToolCall: &agentv1.DeleteToolCall{Args: args}}
	return c.exec(func(m *agentv1.ExecServerMessage) {
		m.Message = &agentv1.ExecServerMessage_DeleteArgs{DeleteArgs: args}
	}), nil
}

func (*deleteFile) onExec(c *call, m *agentv1.ExecClientMessage) Action {
	r := m.GetDeleteResult()
	if r == nil {
		return c.unexpected(m)
	}
	c.card.GetDeleteToolCall().Result = r
	if s := r.GetSuccess(); s != nil {
		return finish("Deleted "+s.GetPath(), false)
	}
	return fail(describe("delete", r))
}
