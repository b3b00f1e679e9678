package cursortest

import (
	"context"
	"fmt"
	"net/http"
	"strings"
	"sync"

	"connectrpc.com/connect"

	aiserverv1 "keygate/gen/cursor/aiserver/v1"
	"keygate/gen/cursor/aiserver/v1/aiserverv1connect"
)

// CmdKClient simulates the editor's inline edit (Cmd-K), the terminal's
// Cmd-K and the source-control panel's commit message and branch name
// over real HTTP. It keeps one file: Edit selects lines, sends the
// instruction (first naming the context items by hash, then in full when
// the server asks for them, as the client does), reads the stream and
// applies the edit to the file.
type CmdKClient struct {
	cmdk aiserverv1connect.CmdKServiceClient
	ai   aiserverv1connect.AiServiceClient
	// Path names the file in requests.
	Path string

	mu    sync.Mutex
	lines []string
	seq   int
}

// NewCmdKClient returns a client of the server at baseURL holding
// contents as the file at path; JSON makes it speak the JSON codec.
func NewCmdKClient(baseURL string, hc *http.Client, path, contents string, json bool) *CmdKClient {
	var opts []connect.ClientOption
	if json {
		opts = append(opts, connect.WithProtoJSON())
	}
	return &CmdKClient{cmdk: aiserverv1connect.NewCmdKServiceClient(hc, baseURL, opts...),
		ai: aiserverv1connect.NewAiServiceClient(hc, baseURL, opts...), Path: path, lines: strings.Split(contents, "\n")}
}

// Contents is the file as the client holds it.
func (c *CmdKClient) Contents() string {
	c.mu.Lock()
	defer c.mu.Unlock()
	return strings.Join(c.lines, "\n")
}

// CmdK is what an inline edit's stream said.
type CmdK struct {
	RequestID string
	// Asked is how many requests it took (2 after the hash handshake).
	Asked int
	// Messages are the real responses in order.
	Messages []*aiserverv1.StreamCmdKResponse
	// Start and End are the edit's range (1-indexed, end exclusive), Text
	// its replacement; Chat the chat-mode answer.
	Start, End int
	Text, Chat string
}

// Request is the StreamCmdK of an instruction on lines [start, end) of
// the file (1-indexed; start == end for an insertion), with its context
// items in full.
func (c *CmdKClient) Request(start, end int, instruction string, chat bool) *aiserverv1.StreamCmdKRequest {
	c.mu.Lock()
	defer c.mu.Unlock()
	var around []*aiserverv1.ContextItem_CmdKImmediateContext_Line
	for i := max(1, start-5); i < min(len(c.lines)+1, end+5); i++ {
		if i < start || i >= end {
			around = append(around, &aiserverv1.ContextItem_CmdKImmediateContext_Line{Line: c.lines[i-1], LineNumber: int32(i)}) //nolint:gosec // a small test file
		}
	}
	item := func(it *aiserverv1.ContextItem) *aiserverv1.PotentiallyCachedContextItem {
		return &aiserverv1.PotentiallyCachedContextItem{Item: &aiserverv1.PotentiallyCachedContextItem_ContextItem{ContextItem: it}}
	}
	return &aiserverv1.StreamCmdKRequest{
		SessionId:   "session-1",
		CmdKOptions: &aiserverv1.CmdKOptions{ChatMode: chat},
		ContextItems: []*aiserverv1.PotentiallyCachedContextItem{
			item(&aiserverv1.ContextItem{Item: &aiserverv1.ContextItem_CmdKQuery_{CmdKQuery: &aiserverv1.ContextItem_CmdKQuery{Query: instruction}}}),
			item(&aiserverv1.ContextItem{Item: &aiserverv1.ContextItem_CmdKSelection_{CmdKSelection: &aiserverv1.ContextItem_CmdKSelection{
				Lines: append([]string(nil), c.lines[start-1:end-1]...), StartLineNumber: int32(start)}}}), //nolint:gosec // a small test file
			item(&aiserverv1.ContextItem{Item: &aiserverv1.ContextItem_CmdKImmediateContext_{CmdKImmediateContext: &aiserverv1.ContextItem_CmdKImmediateContext{
				RelativeWorkspacePath: c.Path, Lines: around, TotalNumberOfLinesInFile: int32(len(c.lines))}}}), //nolint:gosec // a small test file
		},
	}
}

// Edit asks for an inline edit of lines [start, end) and applies the
// answer to the file. The first request names the context items by hash.
func (c *CmdKClient) Edit(ctx context.Context, start, end int, instruction string) (*CmdK, error) {
	return c.ask(ctx, c.Request(start, end, instruction, false), true)
}

// Ask asks a chat-mode question about lines [start, end).
func (c *CmdKClient) Ask(ctx context.Context, start, end int, question string) (*CmdK, error) {
	return c.ask(ctx, c.Request(start, end, question, true), false)
}

func (c *CmdKClient) ask(ctx context.Context, full *aiserverv1.StreamCmdKRequest, hashFirst bool) (*CmdK, error) {
	c.mu.Lock()
	c.seq++
	out := &CmdK{RequestID: fmt.Sprintf("cmdk-%d", c.seq)}
	c.mu.Unlock()
	req := full
	if hashFirst {
		req = &aiserverv1.StreamCmdKRequest{SessionId: full.GetSessionId(), CmdKOptions: full.GetCmdKOptions()}
		for i := range full.GetContextItems() {
			req.ContextItems = append(req.ContextItems, &aiserverv1.PotentiallyCachedContextItem{
				Item: &aiserverv1.PotentiallyCachedContextItem_ContextItemHash{ContextItemHash: fmt.Sprint("hash-", i)}})
		}
	}
	for {
		out.Asked++
		r := connect.NewRequest(req)
		r.Header().Set("X-Request-Id", out.RequestID)
		st, err := c.cmdk.StreamCmdK(ctx, r)
		if err != nil {
			return nil, err
		}
		missing := false
		var text strings.Builder
		for st.Receive() {
			m := st.Msg()
			if m.GetMissingContextItems() != nil {
				missing = true
				continue
			}
			rr := m.GetRealResponse()
			out.Messages = append(out.Messages, rr)
			switch {
			case rr.GetEditStart() != nil:
				out.Start = int(rr.GetEditStart().GetStartLineNumber())
			case rr.GetEditStream() != nil:
				text.WriteString(rr.GetEditStream().GetText())
			case rr.GetEditEnd() != nil:
				out.End = int(rr.GetEditEnd().GetEndLineNumberExclusive())
			case rr.GetChat() != nil:
				out.Chat += rr.GetChat().GetText()
			}
		}
		if err := st.Close(); err != nil {
			return nil, err
		}
		if err := st.Err(); err != nil {
			return out, err
		}
		if missing && out.Asked == 1 {
			req = full
			continue
		}
		out.Text = text.String()
		if out.End > 0 {
			c.apply(out.Start, out.End, out.Text)
		}
		return out, nil
	}
}

// apply replaces lines [start, end) with text's lines.
func (c *CmdKClient) apply(start, end int, text string) {
	c.mu.Lock()
	defer c.mu.Unlock()
	var repl []string
	if text != "" {
		repl = strings.Split(strings.TrimSuffix(text, "\n"), "\n")
	}
	lines := append(append(append([]string(nil), c.lines[:start-1]...), repl...), c.lines[end-1:]...)
	c.lines = lines
}

// Terminal asks the terminal's Cmd-K for a command and returns the
// command the stream carried.
func (c *CmdKClient) Terminal(ctx context.Context, instruction, history string) (string, error) {
	item := func(it *aiserverv1.ContextItem) *aiserverv1.PotentiallyCachedContextItem {
		return &aiserverv1.PotentiallyCachedContextItem{Item: &aiserverv1.PotentiallyCachedContextItem_ContextItem{ContextItem: it}}
	}
	st, err := c.cmdk.StreamTerminalCmdK(ctx, connect.NewRequest(&aiserverv1.StreamTerminalCmdKRequest{ContextItems: []*aiserverv1.PotentiallyCachedContextItem{
		item(&aiserverv1.ContextItem{Item: &aiserverv1.ContextItem_TerminalCmdKQuery_{TerminalCmdKQuery: &aiserverv1.ContextItem_TerminalCmdKQuery{Query: instruction}}}),
		item(&aiserverv1.ContextItem{Item: &aiserverv1.ContextItem_TerminalHistory_{TerminalHistory: &aiserverv1.ContextItem_TerminalHistory{History: history, CwdFull: "/work"}}}),
	}}))
	if err != nil {
		return "", err
	}
	defer func() { _ = st.Close() }()
	cmd := ""
	for st.Receive() {
		cmd += st.Msg().GetRealResponse().GetTerminalCommand().GetPartialCommand()
	}
	return cmd, st.Err()
}

// CommitMessage asks for the message of the staged diffs, sending the
// repository's recent messages (newest first) as the client does.
func (c *CmdKClient) CommitMessage(ctx context.Context, diffs, recent []string) (string, error) {
	res, err := c.ai.WriteGitCommitMessage(ctx, connect.NewRequest(&aiserverv1.WriteGitCommitMessageRequest{Diffs: diffs, PreviousCommitMessages: recent}))
	if err != nil {
		return "", err
	}
	return res.Msg.GetCommitMessage(), nil
}

// BranchName asks for a branch name for diff and what the user said.
func (c *CmdKClient) BranchName(ctx context.Context, diff, context string) (string, error) {
	res, err := c.ai.WriteGitBranchName(ctx, connect.NewRequest(&aiserverv1.WriteGitBranchNameRequest{Diffs: diff, Context: &context}))
	if err != nil {
		return "", err
	}
	return res.Msg.GetBranchName(), nil
}

// CmdK and AI are the raw service clients.
func (c *CmdKClient) CmdK() aiserverv1connect.CmdKServiceClient { return c.cmdk }

// AI is the raw AiService client.
func (c *CmdKClient) AI() aiserverv1connect.AiServiceClient { return c.ai }
