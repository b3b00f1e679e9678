package tools

import (
	"fmt"

	agentv1 "keygate/gen/cursor/agent/v1"
)

// fetchMcpResourceTool reads one resource of an MCP server on the client;
// with download_path the client saves it to that file instead.
var fetchMcpResourceTool = &tool{
	name:  "FetchMcpResource",
	modes: everyMode,
	runs:  onClient,
	open:  func() handler { return new(fetchMcpResource) },
}

// fetchMcpResource handles one FetchMcpResource call; it keeps nothing between steps (the card holds
// what a later step reads).
type fetchMcpResource struct{}

func (*fetchMcpResource) start(c *call) (Action, error) {
	server, err := c.required("server")
	if err != nil {
		return Action{}, err
	}
	uri, err := c.required("uri")
	if err != nil {
		return Action{}, err
	}
	args := &agentv1.ReadMcpResourceExecArgs{Server: server, Uri: uri, DownloadPath: optStr(c.str("download_path")), ToolCallId: c.id}
	c.card.Tool = &agentv1.ToolCall_ReadMcpResourceToolCall{ReadMcpResourceToolCall: &agentv1.ReadMcpResourceToolCall{Args: args}}
	return c.exec(func(m *agentv1.ExecServerMessage) {
		m.Message = &agentv1.ExecServerMessage_ReadMcpResourceExecArgs{ReadMcpResourceExecArgs: args}
	}), nil
}

func (*fetchMcpResource) onExec(c *call, m *agentv1.ExecClientMessage) Action {
	r := m.GetReadMcpResourceExecResult()
	if r == nil {
		return c.unexpected(m)
	}
	c.card.GetReadMcpResourceToolCall().Result = r
	switch x := r.GetResult().(type) {
	case *agentv1.ReadMcpResourceExecResult_Success:
		s := x.Success
		if s.GetDownloadPath() != "" {
			return finish(fmt.Sprintf("Saved %s to %s.", s.GetUri(), s.GetDownloadPath()), false)
		}
		if blob, ok := s.GetContent().(*agentv1.ReadMcpResourceSuccess_Blob); ok {
			return finish(fmt.Sprintf("%s is binary (%d bytes, %s); fetch it with download_path to save it to a file.",
				s.GetUri(), len(blob.Blob), s.GetMimeType()), false)
		}
		if s.GetText() == "" {
			return finish(s.GetUri()+" is empty.", false)
		}
		return finish(s.GetText(), false)
	case *agentv1.ReadMcpResourceExecResult_NotFound:
		return fail("no MCP resource " + x.NotFound.GetUri())
	case *agentv1.ReadMcpResourceExecResult_Rejected:
		return finish("The user declined reading "+x.Rejected.GetUri()+". "+x.Rejected.GetReason(), false)
	case *agentv1.ReadMcpResourceExecResult_Error:
		return fail("reading " + x.Error.GetUri() + " failed: " + x.Error.GetError())
	}
	return fail(describe("read MCP resource", r))
}
