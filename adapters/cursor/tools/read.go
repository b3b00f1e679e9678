package tools

import (
	"fmt"
	"mime"
	"net/http"
	"path"
	"strings"
	"unicode/utf8"

	"keygate/domain/llm"
	agentv1 "keygate/gen/cursor/agent/v1"
)

// readTool reads a file on the client.
var readTool = &tool{
	name:  "Read",
	modes: everyMode,
	runs:  onClient,
	open:  func() handler { return new(read) },
}

// read handles one Read call; it keeps nothing between steps (the card holds
// what a later step reads).
type read struct{}

// maxReadImage bounds an image a Read hands to the model (providers
// refuse larger ones, and it is stored with the conversation).
const maxReadImage = 5 << 20

func (*read) start(c *call) (Action, error) {
	path, err := c.required("path", "file_path", "filePath")
	if err != nil {
		return Action{}, err
	}
	args := &agentv1.ReadArgs{Path: path, ToolCallId: c.id}
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

// onExec completes a Read. Text goes to the model as it is. A file the
// client returns as bytes (or as text that is not text) is an image, which
// the model gets as an image when it takes images and as a note otherwise,
// or another binary file, which it gets a note about. "File is empty." is
// only said of a file that is.
func (rd *read) onExec(c *call, m *agentv1.ExecClientMessage) Action {
	r := m.GetReadResult()
	if r == nil {
		return c.unexpected(m)
	}
	tc := c.card.GetReadToolCall()
	s := r.GetSuccess()
	if s == nil {
		msg := describe("read", r)
		tc.Result = &agentv1.ReadToolResult{Result: &agentv1.ReadToolResult_Error{Error: &agentv1.ReadToolError{ErrorMessage: msg}}}
		return fail(msg)
	}
	p := s.GetPath()
	if p == "" {
		p = tc.GetArgs().GetPath()
	}
	success := &agentv1.ReadToolSuccess{Path: p, TotalLines: uint32(s.GetTotalLines()), FileSize: uint32(s.GetFileSize())}
	tc.Result = &agentv1.ReadToolResult{Result: &agentv1.ReadToolResult_Success{Success: success}}
	data, isBytes := s.GetOutput().(*agentv1.ReadSuccess_Data)
	content := s.GetContent()
	switch {
	case isBytes || !utf8.ValidString(content) || strings.ContainsRune(content, 0):
		raw := []byte(content)
		if isBytes {
			raw = data.Data
		}
		success.Output = &agentv1.ReadToolSuccess_Data{Data: raw}
		return rd.binary(c, p, raw, s.GetFileSize())
	case content == "" && s.GetFileSize() > 0:
		success.Output = &agentv1.ReadToolSuccess_Content{Content: ""}
		return finish(fmt.Sprintf("The client returned no content for %s (%d bytes); it may be binary or unreadable.", p, s.GetFileSize()), false)
	case content == "":
		success.IsEmpty = true
		success.Output = &agentv1.ReadToolSuccess_Content{Content: ""}
		return finish("File is empty.", false)
	}
	success.Output = &agentv1.ReadToolSuccess_Content{Content: content}
	return finish(content, false)
}

// binary completes a Read of a file that is not text.
func (*read) binary(c *call, p string, data []byte, size int64) Action {
	if size == 0 {
		size = int64(len(data))
	}
	kind := imageType(p, data)
	switch {
	case kind == "":
		return finish(fmt.Sprintf("%s is a binary file (%d bytes, %s); its content is not shown.", p, size, http.DetectContentType(data)), false)
	case len(data) == 0:
		return finish(fmt.Sprintf("%s is an image (%s, %d bytes), but the client sent no bytes of it.", p, kind, size), false)
	case !c.env.Images:
		return finish(fmt.Sprintf("%s is an image (%s, %d bytes). This model does not take images, so it cannot see it.", p, kind, size), false)
	case len(data) > maxReadImage:
		return finish(fmt.Sprintf("%s is an image (%s, %d bytes), too large to show (limit %d bytes).", p, kind, size, maxReadImage), false)
	}
	return finishWith(llm.ToolResult{Content: fmt.Sprintf("Image %s (%s, %d bytes).", p, kind, size),
		Image: &llm.Image{MIMEType: kind, Data: data, Path: p}})
}

// imageType is the MIME type of an image providers take (PNG, JPEG, GIF,
// WebP), from its bytes or else its name; "" for anything else.
func imageType(p string, data []byte) string {
	for _, t := range []string{http.DetectContentType(data), mime.TypeByExtension(strings.ToLower(path.Ext(p)))} {
		switch t {
		case "image/png", "image/jpeg", "image/gif", "image/webp":
			return t
		}
	}
	return ""
}
