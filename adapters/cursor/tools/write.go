package tools

import (
	"fmt"

	agentv1 "keygate/gen/cursor/agent/v1"
)

// writeTool creates or overwrites a file on the client.
var writeTool = &tool{
	name:   "Write",
	modes:  editingModes,
	runs:   onClient,
	start:  (*Call).startWrite,
	onExec: (*Call).onEditWrite,
}

func (c *Call) startWrite() (Action, error) {
	path, err := c.required("path", "file_path")
	if err != nil {
		return Action{}, err
	}
	contents, ok := c.args["contents"].(string)
	if !ok {
		if contents, ok = c.args["content"].(string); !ok {
			return Action{}, fmt.Errorf("%s: missing required argument %q", c.call.Name, "contents")
		}
	}
	c.card.Tool = &agentv1.ToolCall_EditToolCall{EditToolCall: &agentv1.EditToolCall{Args: &agentv1.EditArgs{Path: path}}}
	c.edit = &edit{path: path, after: contents, whole: true}
	return c.writeExec(path, contents), nil
}

func (c *Call) writeExec(path, text string) Action {
	return c.exec(func(m *agentv1.ExecServerMessage) {
		m.Message = &agentv1.ExecServerMessage_WriteArgs{WriteArgs: &agentv1.WriteArgs{Path: path, FileText: text, ToolCallId: c.call.CallID}}
	})
}
