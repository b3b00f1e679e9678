package tools

import agentv1 "keygate/gen/cursor/agent/v1"

// deleteTool deletes a file on the client.
var deleteTool = &tool{
	name:   "Delete",
	modes:  editingModes,
	runs:   onClient,
	start:  (*call).startDelete,
	onExec: (*call).onDelete,
}

func (c *call) startDelete() (Action, error) {
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

func (c *call) onDelete(m *agentv1.ExecClientMessage) Action {
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
