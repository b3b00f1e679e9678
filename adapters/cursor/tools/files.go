package tools

import (
	"fmt"
	"strings"

	"google.golang.org/protobuf/encoding/protojson"
	"google.golang.org/protobuf/proto"

	agentv1 "keygate/gen/cursor/agent/v1"
)

func (c *Call) exec(set func(*agentv1.ExecServerMessage)) Action {
	accept := true
	m := &agentv1.ExecServerMessage{ExecId: c.call.CallID, AcceptHookAdditionalContexts: &accept}
	set(m)
	return Action{Exec: m}
}

func (c *Call) startRead() (Action, error) {
	path, err := c.required("path", "file_path", "filePath")
	if err != nil {
		return Action{}, err
	}
	args := &agentv1.ReadArgs{Path: path, ToolCallId: c.call.CallID}
	targs := &agentv1.ReadToolArgs{Path: path}
	if n, ok := c.num("offset"); ok {
		o := int32(n)
		args.Offset, targs.Offset = &o, &o
	}
	if n, ok := c.num("limit"); ok && n > 0 {
		l, tl := uint32(n), int32(n)
		args.Limit, targs.Limit = &l, &tl
	}
	c.card.Tool = &agentv1.ToolCall_ReadToolCall{ReadToolCall: &agentv1.ReadToolCall{Args: targs}}
	return c.exec(func(m *agentv1.ExecServerMessage) { m.Message = &agentv1.ExecServerMessage_ReadArgs{ReadArgs: args} }), nil
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
	c.state = stepEditWrite
	c.edit = &edit{path: path, after: contents}
	return c.writeExec(path, contents), nil
}

func (c *Call) writeExec(path, text string) Action {
	return c.exec(func(m *agentv1.ExecServerMessage) {
		m.Message = &agentv1.ExecServerMessage_WriteArgs{WriteArgs: &agentv1.WriteArgs{Path: path, FileText: text, ToolCallId: c.call.CallID}}
	})
}

func (c *Call) startDelete() (Action, error) {
	path, err := c.required("path", "file_path")
	if err != nil {
		return Action{}, err
	}
	args := &agentv1.DeleteArgs{Path: path, ToolCallId: c.call.CallID}
	c.card.Tool = &agentv1.ToolCall_DeleteToolCall{DeleteToolCall: &agentv1.DeleteToolCall{Args: args}}
	return c.exec(func(m *agentv1.ExecServerMessage) {
		m.Message = &agentv1.ExecServerMessage_DeleteArgs{DeleteArgs: args}
	}), nil
}

func (c *Call) startLs() (Action, error) {
	path, err := c.required("path", "target_directory")
	if err != nil {
		return Action{}, err
	}
	args := &agentv1.LsArgs{Path: path, ToolCallId: c.call.CallID}
	if ig, ok := c.args["ignore"].([]any); ok {
		for _, v := range ig {
			if s, ok := v.(string); ok {
				args.Ignore = append(args.Ignore, s)
			}
		}
	}
	c.card.Tool = &agentv1.ToolCall_LsToolCall{LsToolCall: &agentv1.LsToolCall{Args: args}}
	return c.exec(func(m *agentv1.ExecServerMessage) { m.Message = &agentv1.ExecServerMessage_LsArgs{LsArgs: args} }), nil
}

func (c *Call) startGrep() (Action, error) {
	pattern, err := c.required("pattern")
	if err != nil {
		return Action{}, err
	}
	args := &agentv1.GrepArgs{Pattern: pattern, ToolCallId: c.call.CallID}
	args.Path = optStr(c.str("path"))
	args.Glob = optStr(c.str("glob"))
	args.OutputMode = optStr(c.str("output_mode"))
	args.Type = optStr(c.str("type"))
	args.ContextAfter = c.optInt("-A")
	args.ContextBefore = c.optInt("-B")
	args.Context = c.optInt("-C")
	args.HeadLimit = c.optInt("head_limit")
	args.Offset = c.optInt("offset")
	if c.flag("-i") {
		t := true
		args.CaseInsensitive = &t
	}
	if c.flag("multiline") {
		t := true
		args.Multiline = &t
	}
	c.card.Tool = &agentv1.ToolCall_GrepToolCall{GrepToolCall: &agentv1.GrepToolCall{Args: args}}
	return c.exec(func(m *agentv1.ExecServerMessage) { m.Message = &agentv1.ExecServerMessage_GrepArgs{GrepArgs: args} }), nil
}

// startGlob sends a grep without a pattern, listing the matching files.
func (c *Call) startGlob() (Action, error) {
	pattern, err := c.required("glob_pattern", "pattern")
	if err != nil {
		return Action{}, err
	}
	dir := c.str("target_directory", "path")
	mode := "files_with_matches"
	args := &agentv1.GrepArgs{Glob: &pattern, Path: optStr(dir), OutputMode: &mode, ToolCallId: c.call.CallID}
	c.card.Tool = &agentv1.ToolCall_GlobToolCall{GlobToolCall: &agentv1.GlobToolCall{Args: &agentv1.GlobToolArgs{GlobPattern: pattern, TargetDirectory: optStr(dir)}}}
	return c.exec(func(m *agentv1.ExecServerMessage) { m.Message = &agentv1.ExecServerMessage_GrepArgs{GrepArgs: args} }), nil
}

func (c *Call) optInt(key string) *int32 {
	if n, ok := c.num(key); ok {
		v := int32(n)
		return &v
	}
	return nil
}

func optStr(s string) *string {
	if s == "" {
		return nil
	}
	return &s
}

// onSingle completes a one-exec call from its result.
func (c *Call) onSingle(m *agentv1.ExecClientMessage) Action {
	switch r := m.GetMessage().(type) {
	case *agentv1.ExecClientMessage_ReadResult:
		return c.onRead(r.ReadResult)
	case *agentv1.ExecClientMessage_DeleteResult:
		c.card.GetDeleteToolCall().Result = r.DeleteResult
		if s := r.DeleteResult.GetSuccess(); s != nil {
			return c.finish("Deleted "+s.GetPath(), false)
		}
		return c.fail(describe("delete", r.DeleteResult))
	case *agentv1.ExecClientMessage_LsResult:
		c.card.GetLsToolCall().Result = r.LsResult
		if s := r.LsResult.GetSuccess(); s != nil {
			var b strings.Builder
			renderTree(&b, s.GetDirectoryTreeRoot(), "")
			return c.finish(b.String(), false)
		}
		return c.fail(describe("ls", r.LsResult))
	case *agentv1.ExecClientMessage_GrepResult:
		return c.onGrep(r.GrepResult)
	case nil:
		return Action{} // an empty message is not a result
	}
	return c.fail(fmt.Sprintf("unexpected exec result for tool %s", c.call.Name))
}

func (c *Call) onRead(r *agentv1.ReadResult) Action {
	tc := c.card.GetReadToolCall()
	s := r.GetSuccess()
	if s == nil {
		msg := describe("read", r)
		tc.Result = &agentv1.ReadToolResult{Result: &agentv1.ReadToolResult_Error{Error: &agentv1.ReadToolError{ErrorMessage: msg}}}
		return c.fail(msg)
	}
	tc.Result = &agentv1.ReadToolResult{Result: &agentv1.ReadToolResult_Success{Success: &agentv1.ReadToolSuccess{
		Path: s.GetPath(), TotalLines: uint32(s.GetTotalLines()), FileSize: uint32(s.GetFileSize()),
		IsEmpty: s.GetContent() == "", Output: &agentv1.ReadToolSuccess_Content{Content: s.GetContent()},
	}}}
	if s.GetContent() == "" {
		return c.finish("File is empty.", false)
	}
	return c.finish(s.GetContent(), false)
}

func (c *Call) onGrep(r *agentv1.GrepResult) Action {
	s := r.GetSuccess()
	if glob := c.card.GetGlobToolCall(); glob != nil {
		if s == nil {
			glob.Result = &agentv1.GlobToolResult{Result: &agentv1.GlobToolResult_Error{Error: &agentv1.GlobToolError{Error: r.GetError().GetError()}}}
			return c.fail("glob: " + r.GetError().GetError())
		}
		var files []string
		for _, u := range s.GetWorkspaceResults() {
			files = append(files, u.GetFiles().GetFiles()...)
		}
		glob.Result = &agentv1.GlobToolResult{Result: &agentv1.GlobToolResult_Success{Success: &agentv1.GlobToolSuccess{
			Pattern: glob.GetArgs().GetGlobPattern(), Files: files, TotalFiles: int32(len(files)),
		}}}
		if len(files) == 0 {
			return c.finish("No files found.", false)
		}
		return c.finish(strings.Join(files, "\n"), false)
	}
	c.card.GetGrepToolCall().Result = r
	if s == nil {
		return c.fail("grep: " + r.GetError().GetError())
	}
	return c.finish(renderGrep(s), false)
}

// describe renders a non-success result for the model: the variant's name
// and fields, so the model learns why (not found, rejected, ...).
func describe(what string, m proto.Message) string {
	b, err := protojson.MarshalOptions{}.Marshal(m)
	if err != nil {
		return what + " failed"
	}
	return what + " failed: " + string(b)
}
