package tools

import (
	"fmt"
	"strings"

	agentv1 "keygate/gen/cursor/agent/v1"
)

// strReplaceTool edits a file. The client only reads and writes whole
// files, so the call reads the current text first, replaces on the server
// and writes the result back: two execs.
var strReplaceTool = &tool{
	name:   "StrReplace",
	modes:  editingModes,
	runs:   onClient,
	start:  (*Call).startEdit,
	onExec: (*Call).onEdit,
}

// edit is the file change of a Write or StrReplace.
type edit struct {
	path          string
	before, after string
	// reading: the current text is asked for (StrReplace's first exec).
	reading bool
	// whole: the model gave the whole new file (Write).
	whole bool
}

func (c *Call) startEdit() (Action, error) {
	path, err := c.required("path", "file_path")
	if err != nil {
		return Action{}, err
	}
	if _, ok := c.args["old_string"].(string); !ok {
		return Action{}, fmt.Errorf("%s: missing required argument %q", c.call.Name, "old_string")
	}
	if _, ok := c.args["new_string"].(string); !ok {
		return Action{}, fmt.Errorf("%s: missing required argument %q", c.call.Name, "new_string")
	}
	c.card.Tool = &agentv1.ToolCall_EditToolCall{EditToolCall: &agentv1.EditToolCall{Args: &agentv1.EditArgs{Path: path}}}
	c.edit = &edit{path: path, reading: true}
	return c.exec(func(m *agentv1.ExecServerMessage) {
		m.Message = &agentv1.ExecServerMessage_ReadArgs{ReadArgs: &agentv1.ReadArgs{Path: path, ToolCallId: c.call.CallID}}
	}), nil
}

func (c *Call) onEdit(m *agentv1.ExecClientMessage) Action {
	if c.edit.reading {
		return c.onEditRead(m)
	}
	return c.onEditWrite(m)
}

func (c *Call) onEditRead(m *agentv1.ExecClientMessage) Action {
	r := m.GetReadResult()
	if r == nil {
		if m.GetMessage() == nil {
			return Action{}
		}
		return c.editFailed("unexpected exec result while reading the file")
	}
	s := r.GetSuccess()
	if s == nil {
		return c.editFailed(describe("read", r))
	}
	old, _ := c.args["old_string"].(string)
	repl, _ := c.args["new_string"].(string)
	before := s.GetContent()
	n := strings.Count(before, old)
	switch {
	case old == "":
		return c.editFailed("old_string is empty")
	case n == 0:
		return c.editFailed("old_string was not found in " + c.edit.path)
	case n > 1 && !c.flag("replace_all"):
		return c.editFailed(fmt.Sprintf("old_string occurs %d times in %s; give more context or set replace_all", n, c.edit.path))
	}
	c.edit.before = before
	c.edit.after = strings.Replace(before, old, repl, map[bool]int{true: -1, false: 1}[c.flag("replace_all")])
	c.edit.reading = false
	return c.writeExec(c.edit.path, c.edit.after)
}

// onEditWrite completes a Write or StrReplace once the client wrote the
// file.
func (c *Call) onEditWrite(m *agentv1.ExecClientMessage) Action {
	r := m.GetWriteResult()
	if r == nil {
		if m.GetMessage() == nil {
			return Action{}
		}
		return c.editFailed("unexpected exec result while writing the file")
	}
	if r.GetSuccess() == nil {
		return c.editFailed(describe("write", r))
	}
	before := c.edit.before
	c.card.GetEditToolCall().Result = &agentv1.EditResult{Result: &agentv1.EditResult_Success{Success: &agentv1.EditSuccess{
		Path: c.edit.path, BeforeFullFileContent: &before, AfterFullFileContent: c.edit.after,
	}}}
	if c.edit.whole {
		return c.finish(fmt.Sprintf("Wrote %d lines to %s", strings.Count(c.edit.after, "\n")+1, c.edit.path), false)
	}
	return c.finish("Edited "+c.edit.path, false)
}

func (c *Call) editFailed(msg string) Action {
	c.card.GetEditToolCall().Result = &agentv1.EditResult{Result: &agentv1.EditResult_Error{Error: &agentv1.EditError{Path: c.edit.path, Error: msg}}}
	return c.fail(msg)
}
