package tools

import (
	"fmt"
	"strings"

	agentv1 "keygate/gen/cursor/agent/v1"
)

// readLintsTool reads the editor's diagnostics on the client.
var readLintsTool = &tool{
	name:  "ReadLints",
	modes: everyMode,
	runs:  onClient,
	open:  func() handler { return &readLints{} },
}

// maxLintPaths bounds the diagnostics execs one call sends.
const maxLintPaths = 50

// readLints is a ReadLints call: the client's diagnostics exec takes one
// path, so the call asks for each path in turn and gathers what they gave.
type readLints struct {
	paths []string
	next  int
	files []*agentv1.FileDiagnostics
	text  strings.Builder
	total int32
}

// start reads the editor's diagnostics of every path (the workspace
// root when none is given).
func (l *readLints) start(c *call) (Action, error) {
	var paths []string
	raw, _ := c.args["paths"].([]any)
	for _, p := range raw {
		if s, ok := p.(string); ok && s != "" {
			paths = append(paths, s)
		}
	}
	if len(paths) > maxLintPaths {
		return Action{}, fmt.Errorf("%s: at most %d paths per call", c.name, maxLintPaths)
	}
	c.card.Tool = &agentv1.ToolCall_ReadLintsToolCall{ReadLintsToolCall: &agentv1.ReadLintsToolCall{Args: &agentv1.ReadLintsToolArgs{Paths: paths}}}
	if len(paths) == 0 {
		paths = []string{"."}
	}
	l.paths = paths
	return l.ask(c), nil
}

// ask asks for the next path's diagnostics.
func (l *readLints) ask(c *call) Action {
	path := l.paths[l.next]
	l.next++
	return c.exec(func(m *agentv1.ExecServerMessage) {
		m.Message = &agentv1.ExecServerMessage_DiagnosticsArgs{DiagnosticsArgs: &agentv1.DiagnosticsArgs{Path: path, ToolCallId: c.id}}
	})
}

// onExec records one path's diagnostics and asks for the next path; after
// the last, the model gets every path's diagnostics and the card lists
// them per file.
func (l *readLints) onExec(c *call, m *agentv1.ExecClientMessage) Action {
	r := m.GetDiagnosticsResult()
	if r == nil {
		return c.unexpected(m)
	}
	tc := c.card.GetReadLintsToolCall()
	asked := l.paths[l.next-1]
	s := r.GetSuccess()
	if s == nil {
		msg := describe("diagnostics of "+asked, r)
		tc.Result = &agentv1.ReadLintsToolResult{Result: &agentv1.ReadLintsToolResult_Error{Error: &agentv1.ReadLintsToolError{ErrorMessage: msg}}}
		return fail(msg)
	}
	path := s.GetPath()
	if path == "" {
		path = asked
	}
	fd := &agentv1.FileDiagnostics{Path: path, DiagnosticsCount: int32(len(s.GetDiagnostics()))}
	for _, d := range s.GetDiagnostics() {
		fd.Diagnostics = append(fd.Diagnostics, &agentv1.DiagnosticItem{Severity: d.GetSeverity(), Message: d.GetMessage(),
			Source: d.GetSource(), Code: d.GetCode(), IsStale: d.GetIsStale(), Range: diagnosticRange(d.GetRange())})
		fmt.Fprintf(&l.text, "%s:%d: %s: %s\n", path, d.GetRange().GetStart().GetLine(),
			strings.TrimPrefix(d.GetSeverity().String(), "DIAGNOSTIC_SEVERITY_"), d.GetMessage())
	}
	l.files = append(l.files, fd)
	l.total += fd.DiagnosticsCount
	if l.next < len(l.paths) {
		return l.ask(c)
	}
	tc.Result = &agentv1.ReadLintsToolResult{Result: &agentv1.ReadLintsToolResult_Success{Success: &agentv1.ReadLintsToolSuccess{
		FileDiagnostics: l.files, TotalFiles: int32(len(l.files)), TotalDiagnostics: l.total}}}
	if l.total == 0 {
		return finish("No diagnostics in "+strings.Join(l.paths, ", ")+".", false)
	}
	return finish(l.text.String(), false)
}

func diagnosticRange(r *agentv1.Range) *agentv1.DiagnosticRange {
	if r == nil {
		return nil
	}
	return &agentv1.DiagnosticRange{Start: &agentv1.Position{Line: r.GetStart().GetLine(), Column: r.GetStart().GetColumn()},
		End: &agentv1.Position{Line: r.GetEnd().GetLine(), Column: r.GetEnd().GetColumn()}}
}
