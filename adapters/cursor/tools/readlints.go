package tools

import (
	"fmt"
	"strings"

	agentv1 "keygate/gen/cursor/agent/v1"
)

// readLintsTool reads the editor's diagnostics on the client.
var readLintsTool = &tool{
	name:   "ReadLints",
	modes:  everyMode,
	runs:   onClient,
	start:  (*Call).startLints,
	onExec: (*Call).onLints,
}

// startLints reads the editor's diagnostics. The client's diagnostics exec
// takes one path, so the first path is asked for; no path means the
// workspace root.
func (c *Call) startLints() (Action, error) {
	var paths []string
	raw, _ := c.args["paths"].([]any)
	for _, p := range raw {
		if s, ok := p.(string); ok && s != "" {
			paths = append(paths, s)
		}
	}
	path := "."
	if len(paths) > 0 {
		path = paths[0]
	}
	c.card.Tool = &agentv1.ToolCall_ReadLintsToolCall{ReadLintsToolCall: &agentv1.ReadLintsToolCall{Args: &agentv1.ReadLintsToolArgs{Paths: paths}}}
	return c.exec(func(m *agentv1.ExecServerMessage) {
		m.Message = &agentv1.ExecServerMessage_DiagnosticsArgs{DiagnosticsArgs: &agentv1.DiagnosticsArgs{Path: path, ToolCallId: c.call.CallID}}
	}), nil
}

func (c *Call) onLints(m *agentv1.ExecClientMessage) Action {
	r := m.GetDiagnosticsResult()
	if r == nil {
		if m.GetMessage() == nil {
			return Action{}
		}
		return c.fail("unexpected exec result for ReadLints")
	}
	tc := c.card.GetReadLintsToolCall()
	s := r.GetSuccess()
	if s == nil {
		msg := describe("diagnostics", r)
		tc.Result = &agentv1.ReadLintsToolResult{Result: &agentv1.ReadLintsToolResult_Error{Error: &agentv1.ReadLintsToolError{ErrorMessage: msg}}}
		return c.fail(msg)
	}
	tc.Result = &agentv1.ReadLintsToolResult{Result: &agentv1.ReadLintsToolResult_Success{Success: &agentv1.ReadLintsToolSuccess{
		TotalFiles: 1, TotalDiagnostics: int32(len(s.GetDiagnostics()))}}}
	if len(s.GetDiagnostics()) == 0 {
		return c.finish("No diagnostics in "+s.GetPath()+".", false)
	}
	var b strings.Builder
	for _, d := range s.GetDiagnostics() {
		fmt.Fprintf(&b, "%s:%d: %s: %s\n", s.GetPath(), d.GetRange().GetStart().GetLine(),
			strings.TrimPrefix(d.GetSeverity().String(), "DIAGNOSTIC_SEVERITY_"), d.GetMessage())
	}
	return c.finish(b.String(), false)
}
