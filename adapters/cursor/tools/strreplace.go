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
	start:  (*call).startEdit,
	onExec: (*call).onEdit,
}

// edit is the file change of a Write or StrReplace.
type edit struct {
	path          string
	before, after string
	// reading: the current text is asked for (the first exec).
	reading bool
	// whole: the model gave the whole new file (Write).
	whole bool
}

func (c *call) startEdit() (Action, error) {
	path, err := c.required("path", "file_path")
	if err != nil {
		return Action{}, err
	}
	if _, ok := c.args["old_string"].(string); !ok {
		return Action{}, c.missing("old_string")
	}
	repl, ok := c.args["new_string"].(string)
	if !ok {
		return Action{}, c.missing("new_string")
	}
	c.card.Tool = &agentv1.ToolCall_EditToolCall{EditToolCall: &agentv1.EditToolCall{Args: &agentv1.EditArgs{Path: path, StreamContent: &repl}}}
	c.edit = &edit{path: path, reading: true}
	return c.readExec(path), nil
}

func (c *call) onEdit(m *agentv1.ExecClientMessage) Action {
	if c.edit.reading {
		return c.onEditRead(m)
	}
	return c.onEditWrite(m)
}

// onEditRead takes the file's current text and sends the write: the whole
// new text of a Write, the replacement of a StrReplace.
func (c *call) onEditRead(m *agentv1.ExecClientMessage) Action {
	r := m.GetReadResult()
	if r == nil {
		if m.GetMessage() == nil {
			return Action{}
		}
		return c.editFailed(editError(c.edit.path, "unexpected exec result while reading the file"))
	}
	c.edit.reading = false
	if c.edit.whole {
		switch {
		case r.GetSuccess() != nil:
			c.edit.before = r.GetSuccess().GetContent()
		case r.GetFileNotFound() == nil: // a missing file is a new file
			return c.editFailed(readFailure(c.edit.path, r))
		}
		return c.writeExec(c.edit.path, c.edit.after)
	}
	s := r.GetSuccess()
	if s == nil {
		return c.editFailed(readFailure(c.edit.path, r))
	}
	old, _ := c.args["old_string"].(string)
	repl, _ := c.args["new_string"].(string)
	before := s.GetContent()
	n := strings.Count(before, old)
	switch {
	case old == "":
		return c.editFailed(editError(c.edit.path, "old_string is empty"))
	case n == 0:
		return c.editFailed(editError(c.edit.path, "old_string was not found in "+c.edit.path))
	case n > 1 && !c.flag("replace_all"):
		return c.editFailed(editError(c.edit.path, fmt.Sprintf("old_string occurs %d times in %s; give more context or set replace_all", n, c.edit.path)))
	}
	c.edit.before = before
	c.edit.after = strings.Replace(before, old, repl, map[bool]int{true: -1, false: 1}[c.flag("replace_all")])
	return c.writeExec(c.edit.path, c.edit.after)
}

// onEditWrite completes a Write or StrReplace once the client wrote the
// file: the card gets both texts, the diff and its line counts.
func (c *call) onEditWrite(m *agentv1.ExecClientMessage) Action {
	r := m.GetWriteResult()
	if r == nil {
		if m.GetMessage() == nil {
			return Action{}
		}
		return c.editFailed(editError(c.edit.path, "unexpected exec result while writing the file"))
	}
	s := r.GetSuccess()
	if s == nil {
		return c.editFailed(writeFailure(c.edit.path, r))
	}
	// The client's text after the write (a formatter or line endings may
	// change it) is what the card shows.
	after := c.edit.after
	if s.FileContentAfterWrite != nil {
		after = s.GetFileContentAfterWrite()
	}
	d := diffOf(c.edit.path, c.edit.before, after)
	msg := "Edited " + c.edit.path
	if c.edit.whole {
		msg = fmt.Sprintf("Wrote %d lines to %s", strings.Count(c.edit.after, "\n")+1, c.edit.path)
	}
	before := c.edit.before
	c.card.GetEditToolCall().Result = &agentv1.EditResult{Result: &agentv1.EditResult_Success{Success: &agentv1.EditSuccess{
		Path: c.edit.path, BeforeFullFileContent: &before, AfterFullFileContent: after,
		LinesAdded: &d.added, LinesRemoved: &d.removed, DiffString: d.text, Message: &msg,
	}}}
	return finish(msg, false)
}

// editFailed completes the call with the card's failure variant; the model
// reads the same reason.
func (c *call) editFailed(r *agentv1.EditResult) Action {
	c.card.GetEditToolCall().Result = r
	return fail(editReason(r))
}

func editError(path, msg string) *agentv1.EditResult {
	return &agentv1.EditResult{Result: &agentv1.EditResult_Error{Error: &agentv1.EditError{Path: path, Error: msg, ModelVisibleError: &msg}}}
}

// readFailure is the card of a read that did not succeed.
func readFailure(path string, r *agentv1.ReadResult) *agentv1.EditResult {
	switch {
	case r.GetFileNotFound() != nil:
		return &agentv1.EditResult{Result: &agentv1.EditResult_FileNotFound{FileNotFound: &agentv1.EditFileNotFound{Path: path}}}
	case r.GetPermissionDenied() != nil:
		return &agentv1.EditResult{Result: &agentv1.EditResult_ReadPermissionDenied{ReadPermissionDenied: &agentv1.EditReadPermissionDenied{Path: path}}}
	case r.GetRejected() != nil:
		return &agentv1.EditResult{Result: &agentv1.EditResult_Rejected{Rejected: &agentv1.EditRejected{Path: path, Reason: r.GetRejected().GetReason()}}}
	}
	return editError(path, describe("read", r))
}

// writeFailure is the card of a write that did not succeed.
func writeFailure(path string, r *agentv1.WriteResult) *agentv1.EditResult {
	switch {
	case r.GetPermissionDenied() != nil:
		p := r.GetPermissionDenied()
		return &agentv1.EditResult{Result: &agentv1.EditResult_WritePermissionDenied{WritePermissionDenied: &agentv1.EditWritePermissionDenied{
			Path: path, Error: p.GetError(), IsReadonly: p.GetIsReadonly()}}}
	case r.GetRejected() != nil:
		return &agentv1.EditResult{Result: &agentv1.EditResult_Rejected{Rejected: &agentv1.EditRejected{Path: path, Reason: r.GetRejected().GetReason()}}}
	}
	return editError(path, describe("write", r))
}

// editReason is what the model reads of a failed edit.
func editReason(r *agentv1.EditResult) string {
	switch v := r.GetResult().(type) {
	case *agentv1.EditResult_Error:
		return v.Error.GetError()
	case *agentv1.EditResult_FileNotFound:
		return "file not found: " + v.FileNotFound.GetPath()
	case *agentv1.EditResult_ReadPermissionDenied:
		return "permission denied reading " + v.ReadPermissionDenied.GetPath()
	case *agentv1.EditResult_WritePermissionDenied:
		return "permission denied writing " + v.WritePermissionDenied.GetPath() + ": " + v.WritePermissionDenied.GetError()
	case *agentv1.EditResult_Rejected:
		return "the user rejected the edit of " + v.Rejected.GetPath() + ": " + v.Rejected.GetReason()
	}
	return "edit failed"
}
