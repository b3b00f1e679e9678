package tools

import (
	"strings"

	agentv1 "keygate/gen/cursor/agent/v1"
)

// globTool finds files by name. The client has no glob exec: it is a grep
// without a pattern that lists the matching files.
var globTool = &tool{
	name:  "Glob",
	modes: everyMode,
	runs:  onClient,
	open:  func() handler { return new(glob) },
}

// glob handles one Glob call; it keeps nothing between steps (the card holds
// what a later step reads).
type glob struct{}

func (*glob) start(c *call) (Action, error) {
	pattern, err := c.required("glob_pattern", "pattern")
	if err != nil {
		return Action{}, err
	}
	dir := c.str("target_directory", "path")
	mode := "files_with_matches"
	args := &agentv1.GrepArgs{Glob: &pattern, Path: optStr(dir), OutputMode: &mode, ToolCallId: c.id}
	c.card.Tool = &agentv1.ToolCall_GlobToolCall{GlobToolCall: &agentv1.GlobToolCall{Args: &agentv1.GlobToolArgs{GlobPattern: pattern, TargetDirectory: optStr(dir)}}}
	return c.exec(func(m *agentv1.ExecServerMessage) { m.Message = &agentv1.ExecServerMessage_GrepArgs{GrepArgs: args} }), nil
}

func (*glob) onExec(c *call, m *agentv1.ExecClientMessage) Action {
	r := m.GetGrepResult()
	if r == nil {
		return c.unexpected(m)
	}
	glob := c.card.GetGlobToolCall()
	s := r.GetSuccess()
	if s == nil {
		glob.Result = &agentv1.GlobToolResult{Result: &agentv1.GlobToolResult_Error{Error: &agentv1.GlobToolError{Error: r.GetError().GetError()}}}
		return fail("glob: " + r.GetError().GetError())
	}
	var files []string
	for _, u := range s.GetWorkspaceResults() {
		files = append(files, u.GetFiles().GetFiles()...)
	}
	glob.Result = &agentv1.GlobToolResult{Result: &agentv1.GlobToolResult_Success{Success: &agentv1.GlobToolSuccess{
		Pattern: glob.GetArgs().GetGlobPattern(), Files: files, TotalFiles: int32(len(files)),
	}}}
	if len(files) == 0 {
		return finish("No files found.", false)
	}
	return finish(strings.Join(files, "\n"), false)
}
