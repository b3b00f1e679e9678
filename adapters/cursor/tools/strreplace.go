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
	name:  "StrReplace",
	modes: editingModes,
	runs:  onClient,
	open:  func() handler { return &strReplace{} },
}

// strReplace handles one StrReplace call.
type strReplace struct{ edit }

// edit is the file change of a Write or StrReplace, and the steps they
// share: read the file, write its new text, show both and the diff.
type edit struct {
	path          string
	before, after string
	// reading: the current text is asked for (the first exec).
	reading bool
	// whole: the model gave the whole new file (Write).
	whole bool
}

func (e *strReplace) start(c *call) (Action, error) {
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
	e.path, e.reading = path, true
	return readExec(c, path), nil
}

func (e *edit) onExec(c *call, m *agentv1.ExecClientMessage) Action {
	if e.reading {
		return e.onRead(c, m)
	}
	return e.onWrite(c, m)
}

// onRead takes the file's current text and sends the write: the whole
// new text of a Write, the replacement of a StrReplace.
func (e *edit) onRead(c *call, m *agentv1.ExecClientMessage) Action {
	r := m.GetReadResult()
	if r == nil {
		if m.GetMessage() == nil {
			return Action{}
		}
		return editFailed(c, editError(e.path, "unexpected exec result while reading the file"))
	}
	e.reading = false
	if e.whole {
		switch {
		case r.GetSuccess() != nil:
			e.before = r.GetSuccess().GetContent()
		case r.GetFileNotFound() == nil: // a missing file is a new file
			return editFailed(c, readFailure(e.path, r))
		}
		return writeExec(c, e.path, e.after)
	}
	s := r.GetSuccess()
	if s == nil {
		return editFailed(c, readFailure(e.path, r))
	}
	old, _ := c.args["old_string"].(string)
	repl, _ := c.args["new_string"].(string)
	before := s.GetContent()
	n := strings.Count(before, old)
	switch {
	case old == "":
		return editFailed(c, editError(e.path, "old_string is empty"))
	case n == 0:
		return editFailed(c, editError(e.path, "old_string was not found in "+e.path))
	case n > 1 && !c.flag("replace_all"):
		return editFailed(c, editError(e.path, fmt.Sprintf("old_string occurs %d times in %s; give more context or set replace_all", n, e.path)))
	}
	e.before = before
	e.after = strings.Replace(before, old, repl, map[bool]int{true: -1, false: 1}[c.flag("replace_all")])
	return writeExec(c, e.path, e.after)
}

// onWrite completes a Write or StrReplace once the client wrote the
// file: the card gets both texts, the diff and its line counts.
func (e *edit) onWrite(c *call, m *agentv1.ExecClientMessage) Action {
	r := m.GetWriteResult()
	if r == nil {
		if m.GetMessage() == nil {
			return Action{}
		}
		return editFailed(c, editError(e.path, "unexpected exec result while writing the file"))
	}
	s := r.GetSuccess()
	if s == nil {
		return editFailed(c, writeFailure(e.path, r))
	}
	// The client's text after the write (a formatter or line endings may
	// change it) is what the card shows.
	after := e.after
	if s.FileContentAfterWrite != nil {
		after = s.GetFileContentAfterWrite()
	}
	d := diffOf(e.path, e.before, after)
	msg := "Edited " + e.path
	if e.whole {
		msg = wroteLines(lines(e.after), e.path)
	}
	before := e.before
	c.card.GetEditToolCall().Result = &agentv1.EditResult{Result: &agentv1.EditResult_Success{Success: &agentv1.EditSuccess{
		Path: e.path, BeforeFullFileContent: &before, AfterFullFileContent: after,
		LinesAdded: &d.added, LinesRemoved: &d.removed, DiffString: d.text, Message: &msg,
	}}}
	return finish(msg, false)
}

// wroteLines is what the model reads after a Write: the lines of the text
// it wrote, counted as a person counts them (lines: a last line needs no
// newline, and a final newline opens no line).
func wroteLines(n int32, path string) string {
	if n == 1 {
		return "Wrote 1 line to " + path
	}
	return fmt.Sprintf("Wrote %d lines to %s", n, path)
}

// editFailed completes the call with the card's failure variant; the model
// reads the same reason.
func editFailed(c *call, r *agentv1.EditResult) Action {
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
