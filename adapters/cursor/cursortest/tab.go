package cursortest

import (
	"context"
	"fmt"
	"net/http"
	"strings"
	"sync"

	"connectrpc.com/connect"
	"google.golang.org/protobuf/proto"

	"keygate/domain/tab"
	aiserverv1 "keygate/gen/cursor/aiserver/v1"
	"keygate/gen/cursor/aiserver/v1/aiserverv1connect"
)

// TabClient simulates the editor's Tab over real HTTP: it keeps one file
// and a cursor, types, asks for a suggestion when the user pauses (a
// StreamCpp with the file, the cursor and the recent edits), aborts the
// open stream when the user types again (the request's context ends, which
// closes its HTTP/1.1 connection, as the client does), applies a
// suggestion's edits on accept and reports each suggestion's fate
// (CppService/RecordCppFate).
type TabClient struct {
	ai  aiserverv1connect.AiServiceClient
	cpp aiserverv1connect.CppServiceClient
	// Path and Workspace name the file in requests.
	Path, Workspace string

	mu       sync.Mutex
	lines    []string
	line     int // 0-indexed, as the client sends the cursor
	col      int
	recent   []string
	inflight context.CancelFunc
	seq      int
}

// NewTabClient returns a Tab client for the server at baseURL holding
// contents as the file at path; JSON makes it speak application/connect+json
// (and application/json on unary calls) instead of the binary codec.
func NewTabClient(baseURL string, hc *http.Client, path, contents string, json bool) *TabClient {
	var opts []connect.ClientOption
	if json {
		opts = append(opts, connect.WithProtoJSON())
	}
	return &TabClient{
		ai:        aiserverv1connect.NewAiServiceClient(hc, baseURL, opts...),
		cpp:       aiserverv1connect.NewCppServiceClient(hc, baseURL, opts...),
		Path:      path,
		Workspace: "ws-1",
		lines:     strings.Split(contents, "\n"),
	}
}

// Contents is the file as the client holds it.
func (c *TabClient) Contents() string {
	c.mu.Lock()
	defer c.mu.Unlock()
	return strings.Join(c.lines, "\n")
}

// MoveTo puts the cursor at a 0-indexed line and column.
func (c *TabClient) MoveTo(line, col int) {
	c.mu.Lock()
	defer c.mu.Unlock()
	c.line, c.col = line, col
}

// Type inserts s at the cursor and moves the cursor past it; an open
// suggestion stream is aborted first, as the editor drops a suggestion the
// user typed over.
func (c *TabClient) Type(s string) {
	c.mu.Lock()
	defer c.mu.Unlock()
	if c.inflight != nil {
		c.inflight()
		c.inflight = nil
	}
	cur := c.lines[c.line]
	col := min(c.col, len(cur))
	typed := strings.Split(cur[:col]+s+cur[col:], "\n")
	c.lines = append(c.lines[:c.line], append(typed, c.lines[c.line+1:]...)...)
	c.recent = append(c.recent, fmt.Sprintf("%d+|%s", c.line+1, s))
	c.line += len(typed) - 1
	last := strings.Split(s, "\n")
	if len(last) > 1 {
		c.col = len(last[len(last)-1])
	} else {
		c.col = col + len(s)
	}
}

// Config asks CppConfig.
func (c *TabClient) Config(ctx context.Context) (*aiserverv1.CppConfigResponse, error) {
	resp, err := c.ai.CppConfig(ctx, connect.NewRequest(&aiserverv1.CppConfigRequest{Model: "", SupportsCpt: proto.Bool(true)}))
	if err != nil {
		return nil, err
	}
	return resp.Msg, nil
}

// Request is the StreamCpp request the client would send now.
func (c *TabClient) Request() *aiserverv1.StreamCppRequest {
	c.mu.Lock()
	defer c.mu.Unlock()
	return &aiserverv1.StreamCppRequest{
		CurrentFile: &aiserverv1.CurrentFileInfo{
			RelativeWorkspacePath: c.Path,
			Contents:              strings.Join(c.lines, "\n"),
			CursorPosition:        &aiserverv1.CursorPosition{Line: int32(c.line), Column: int32(c.col)}, //nolint:gosec // small test files
			LanguageId:            "go",
			LineEnding:            proto.String("\n"),
			TotalNumberOfLines:    int32(len(c.lines)), //nolint:gosec // small test files
		},
		FileDiffHistories: []*aiserverv1.CppFileDiffHistory{{FileName: c.Path, DiffHistory: append([]string(nil), c.recent...)}},
		WorkspaceId:       proto.String(c.Workspace),
		SupportsCpt:       proto.Bool(true),
	}
}

// Pause asks for a suggestion as the editor does once the user stops
// typing: it opens a StreamCpp in the background and returns at once.
func (c *TabClient) Pause(ctx context.Context) *Suggestion {
	req := c.Request()
	c.mu.Lock()
	c.seq++
	s := &Suggestion{RequestID: fmt.Sprintf("tab-%s-%d", c.Path, c.seq), done: make(chan struct{})}
	if c.inflight != nil {
		c.inflight()
	}
	ctx, cancel := context.WithCancel(ctx)
	c.inflight = cancel
	c.mu.Unlock()
	r := connect.NewRequest(req)
	r.Header().Set("X-Request-Id", s.RequestID)
	go s.read(ctx, cancel, c.ai, r)
	return s
}

// Suggest is Pause waiting for the whole suggestion.
func (c *TabClient) Suggest(ctx context.Context) (*Suggestion, error) {
	s := c.Pause(ctx)
	<-s.Done()
	return s, s.Err
}

// Accept applies s's edits to the file and reports it accepted.
func (c *TabClient) Accept(ctx context.Context, s *Suggestion) error {
	c.mu.Lock()
	c.lines = strings.Split(ApplyEdits(strings.Join(c.lines, "\n"), s.Edits), "\n")
	c.mu.Unlock()
	return c.Fate(ctx, s.RequestID, aiserverv1.CppFate_CPP_FATE_ACCEPT)
}

// Reject leaves the file and reports s rejected.
func (c *TabClient) Reject(ctx context.Context, s *Suggestion) error {
	return c.Fate(ctx, s.RequestID, aiserverv1.CppFate_CPP_FATE_REJECT)
}

// Fate sends RecordCppFate for requestID.
func (c *TabClient) Fate(ctx context.Context, requestID string, f aiserverv1.CppFate) error {
	_, err := c.cpp.RecordCppFate(ctx, connect.NewRequest(&aiserverv1.RecordCppFateRequest{RequestId: requestID, Fate: f}))
	return err
}

// AI and Cpp are the client's Connect clients, for the companion calls.
func (c *TabClient) AI() aiserverv1connect.AiServiceClient { return c.ai }

// Cpp is the CppService client.
func (c *TabClient) Cpp() aiserverv1connect.CppServiceClient { return c.cpp }

// TabEdit is one edit of a suggestion: its text replaces the range's lines.
type TabEdit struct {
	Range tab.Range
	Text  string
}

// Suggestion is one StreamCpp as the client read it.
type Suggestion struct {
	RequestID string
	// Messages are every message received, in order.
	Messages []*aiserverv1.StreamCppResponse
	// Edits are the edits assembled from begin_edit, range_to_replace,
	// text and done_edit; Complete counts the ones closed by done_edit.
	Edits    []TabEdit
	Complete int
	// Jump is the cursor_prediction_target, if any.
	Jump *aiserverv1.StreamCppResponse_CursorPredictionTarget
	// DoneStream says the stream ended with done_stream.
	DoneStream bool
	// Err is the stream's error (a Connect error, or context.Canceled
	// when the client aborted it).
	Err  error
	done chan struct{}
}

// Done is closed when the stream ended.
func (s *Suggestion) Done() <-chan struct{} { return s.done }

func (s *Suggestion) read(ctx context.Context, cancel context.CancelFunc, ai aiserverv1connect.AiServiceClient, r *connect.Request[aiserverv1.StreamCppRequest]) {
	defer close(s.done)
	defer cancel()
	stream, err := ai.StreamCpp(ctx, r)
	if err != nil {
		s.Err = err
		return
	}
	defer stream.Close()
	open := false
	for stream.Receive() {
		m := stream.Msg()
		s.Messages = append(s.Messages, m)
		switch {
		case m.GetBeginEdit():
			s.Edits = append(s.Edits, TabEdit{})
			open = true
		case m.GetRangeToReplace() != nil:
			if !open {
				s.Edits = append(s.Edits, TabEdit{})
				open = true
			}
			rg := m.GetRangeToReplace()
			s.Edits[len(s.Edits)-1].Range = tab.Range{StartLine: int(rg.GetStartLineNumber()), EndLine: int(rg.GetEndLineNumberInclusive())}
		case m.GetDoneEdit():
			open = false
			s.Complete++
		case m.GetCursorPredictionTarget() != nil:
			s.Jump = m.GetCursorPredictionTarget()
		case m.GetDoneStream():
			s.DoneStream = true
		case m.GetText() != "" && open:
			s.Edits[len(s.Edits)-1].Text += m.GetText()
		}
	}
	if ctx.Err() != nil {
		s.Err = ctx.Err()
	} else {
		s.Err = stream.Err()
	}
}

// ApplyEdits applies edits in order, each to the file as the previous one
// left it, as the editor does (domain/tab.Apply: an edit replaces lines
// StartLine..EndLine, 1-indexed and inclusive, with its text split on "\n").
func ApplyEdits(contents string, edits []TabEdit) string {
	lines := strings.Split(contents, "\n")
	for _, e := range edits {
		lines = tab.Apply(lines, e.Range, e.Text)
	}
	return strings.Join(lines, "\n")
}
