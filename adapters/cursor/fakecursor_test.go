package cursor_test

import (
	"context"
	"errors"
	"io"
	"net/http"
	"sync"

	"connectrpc.com/connect"
	"google.golang.org/protobuf/proto"

	"keygate/adapters/cursor/cursortest"
	"keygate/adapters/cursor/frame"
	"keygate/gen/cursor/agent/v1/agentv1connect"
	aiserverv1 "keygate/gen/cursor/aiserver/v1"
	"keygate/gen/cursor/aiserver/v1/aiserverv1connect"
)

// cursorCall is one request the fake Cursor received.
type cursorCall struct {
	Host   string
	Header http.Header
	Body   []byte
}

// fakeCursor plays Cursor's side of the run routes: it records every
// BidiAppend, answers RunSSE with scripted text frames (waiting on gate
// between frames when gate is set) and echoes each HTTP/2 Run frame with
// a text naming its index.
type fakeCursor struct {
	aiserverv1connect.UnimplementedBidiServiceHandler
	texts  []string
	gate   chan struct{}
	status int // when set, RunSSE answers this HTTP status and nothing else

	mu        sync.Mutex
	appends   []*aiserverv1.BidiAppendRequest
	appendHdr []http.Header
	sse       []cursorCall
	runs      []cursorCall
	runFrames [][]byte
}

func (c *fakeCursor) routes() http.Handler {
	mux := http.NewServeMux()
	path, h := aiserverv1connect.NewBidiServiceHandler(c)
	mux.Handle(path, h)
	mux.HandleFunc(agentv1connect.AgentServiceRunSSEProcedure, c.runSSE)
	mux.HandleFunc(agentv1connect.AgentServiceRunProcedure, c.run)
	return mux
}

func (c *fakeCursor) BidiAppend(_ context.Context, req *connect.Request[aiserverv1.BidiAppendRequest]) (*connect.Response[aiserverv1.BidiAppendResponse], error) {
	c.mu.Lock()
	defer c.mu.Unlock()
	c.appends = append(c.appends, req.Msg)
	c.appendHdr = append(c.appendHdr, req.Header().Clone())
	return connect.NewResponse(&aiserverv1.BidiAppendResponse{}), nil
}

func (c *fakeCursor) runSSE(w http.ResponseWriter, r *http.Request) {
	body, _ := io.ReadAll(r.Body)
	c.mu.Lock()
	c.sse = append(c.sse, cursorCall{Host: r.Host, Header: r.Header.Clone(), Body: body})
	c.mu.Unlock()
	if c.status != 0 {
		http.Error(w, "refused", c.status)
		return
	}
	w.Header().Set("Content-Type", "text/event-stream")
	rc := http.NewResponseController(w)
	for i, t := range c.texts {
		if i > 0 && c.gate != nil {
			select {
			case <-c.gate:
			case <-r.Context().Done():
				return
			}
		}
		c.write(w, rc, t)
	}
	_, _ = w.Write(frame.EndFrame(nil))
}

func (c *fakeCursor) run(w http.ResponseWriter, r *http.Request) {
	c.mu.Lock()
	c.runs = append(c.runs, cursorCall{Host: r.Host, Header: r.Header.Clone()})
	c.mu.Unlock()
	w.Header().Set("Content-Type", "application/connect+proto")
	rc := http.NewResponseController(w)
	_ = rc.Flush()
	frames := frame.NewReader(r.Body, 0)
	for i := 0; ; i++ {
		f, err := frames.Next(r.Context())
		if err != nil || f.EndStream() {
			var end error
			if err != nil && !errors.Is(err, io.EOF) {
				end = connect.NewError(connect.CodeInvalidArgument, err)
			}
			_, _ = w.Write(frame.EndFrame(end))
			return
		}
		c.mu.Lock()
		c.runFrames = append(c.runFrames, f.Payload)
		c.mu.Unlock()
		c.write(w, rc, "frame "+string(rune('0'+i)))
	}
}

func (c *fakeCursor) write(w http.ResponseWriter, rc *http.ResponseController, text string) {
	b, _ := proto.Marshal(cursortest.TextDelta(text))
	_, _ = w.Write(frame.Encode(0, b))
	_ = rc.Flush()
}

// Appends returns the BidiAppends received so far.
func (c *fakeCursor) Appends() []*aiserverv1.BidiAppendRequest {
	c.mu.Lock()
	defer c.mu.Unlock()
	return append([]*aiserverv1.BidiAppendRequest(nil), c.appends...)
}

// SSE returns the RunSSE calls received so far.
func (c *fakeCursor) SSE() []cursorCall {
	c.mu.Lock()
	defer c.mu.Unlock()
	return append([]cursorCall(nil), c.sse...)
}

// Runs returns the HTTP/2 Run calls received so far.
func (c *fakeCursor) Runs() []cursorCall {
	c.mu.Lock()
	defer c.mu.Unlock()
	return append([]cursorCall(nil), c.runs...)
}

// RunFrames returns the payloads of the Run frames received so far.
func (c *fakeCursor) RunFrames() [][]byte {
	c.mu.Lock()
	defer c.mu.Unlock()
	return append([][]byte(nil), c.runFrames...)
}

// AppendHeaders returns the headers of the BidiAppends received so far.
func (c *fakeCursor) AppendHeaders() []http.Header {
	c.mu.Lock()
	defer c.mu.Unlock()
	return append([]http.Header(nil), c.appendHdr...)
}
