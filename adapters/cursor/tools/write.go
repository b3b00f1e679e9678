package tools

import agentv1 "keygate/gen/cursor/agent/v1"

// writeTool creates or overwrites a file on the client. The call reads the
// file first (a file that does not exist is a new file), so the card shows
// what the write replaced and the diff, then writes the whole text: two
// execs.
var writeTool = &tool{
	name:  "Write",
	modes: editingModes,
	runs:  onClient,
	open:  func() handler { return &write{} },
}

// write handles one Write call.
type write struct{ edit }

// writeContentKeys are the argument names of a Write's new text.
var writeContentKeys = []string{"contents", "content"}

func (e *write) start(c *call) (Action, error) {
	path, err := c.required("path", "file_path")
	if err != nil {
		return Action{}, err
	}
	contents, ok := c.args["contents"].(string)
	if !ok {
		if contents, ok = c.args["content"].(string); !ok {
			return Action{}, c.missing("contents")
		}
	}
	c.card.Tool = &agentv1.ToolCall_EditToolCall{EditToolCall: &agentv1.EditToolCall{Args: &agentv1.EditArgs{Path: path, StreamContent: &contents}}}
	e.edit = edit{path: path, after: contents, whole: true, reading: true}
	return readExec(c, path), nil
}

// EditContentKeys names the argument that carries the new text of a call
// of the tool named name, which the client's edit card shows while the
// model streams it: a Write's contents, a StrReplace's new_string. It is
// nil for other tools.
func EditContentKeys(name string) []string {
	switch lookup(name) {
	case writeTool:
		return writeContentKeys
	case strReplaceTool:
		return []string{"new_string"}
	}
	return nil
}

func writeExec(c *call, path, text string) Action {
	return c.exec(func(m *agentv1.ExecServerMessage) {
		m.Message = &agentv1.ExecServerMessage_WriteArgs{WriteArgs: &agentv1.WriteArgs{Path: path, FileText: text, ToolCallId: c.id,
			ReturnFileContentAfterWrite: true}}
	})
}

func readExec(c *call, path string) Action {
	return c.exec(func(m *agentv1.ExecServerMessage) {
		m.Message = &agentv1.ExecServerMessage_ReadArgs{ReadArgs: &agentv1.ReadArgs{Path: path, ToolCallId: c.id}}
	})
}
