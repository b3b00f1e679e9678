package cursortest

import (
	"context"
	"fmt"
	"io"
	"net/http"
	"sync"

	"keygate/adapters/cursor/frame"
	agentv1 "keygate/gen/cursor/agent/v1"
	"keygate/gen/cursor/agent/v1/agentv1connect"
)

// RunStream is an HTTP/2 AgentService/Run call: Send writes frames on the
// request body while Stream reads the response.
type RunStream struct {
	*Stream
	mu   sync.Mutex
	body *io.PipeWriter
	Gzip bool // compress the frames this side sends (flag 0x01)
}

// Run opens AgentService/Run with x-request-id set to the client's request
// id. hc must speak HTTP/2 (h2c in specs). The first message is sent before
// the call returns, as the response headers only come after it.
func (c *Client) Run(ctx context.Context, hc *http.Client, first *agentv1.AgentClientMessage, gzip bool) (*RunStream, error) {
	pr, pw := io.Pipe()
	ctx, cancel := context.WithCancel(ctx)
	req, err := http.NewRequestWithContext(ctx, http.MethodPost, c.baseURL+agentv1connect.AgentServiceRunProcedure, pr)
	if err != nil {
		cancel()
		return nil, fmt.Errorf("build Run request: %w", err)
	}
	req.Header.Set("Content-Type", "application/connect+proto")
	req.Header.Set("Connect-Protocol-Version", "1")
	req.Header.Set("X-Request-Id", c.RequestID)
	if gzip {
		req.Header.Set("Connect-Content-Encoding", "gzip")
	}
	for k, vs := range c.Header {
		req.Header[k] = vs
	}
	rs := &RunStream{body: pw, Gzip: gzip}
	sent := make(chan error, 1)
	go func() { sent <- rs.Send(ctx, first) }()
	resp, err := hc.Do(req)
	if err != nil {
		cancel()
		_ = pw.CloseWithError(err)
		return nil, fmt.Errorf("open Run: %w", err)
	}
	if err := <-sent; err != nil {
		cancel()
		return nil, err
	}
	rs.Stream = &Stream{Status: resp.StatusCode, ProtoMajor: resp.ProtoMajor, Header: resp.Header, cancel: cancel, done: make(chan struct{})}
	go rs.read(ctx, resp.Body, func(ctx context.Context, m *agentv1.AgentServerMessage) error {
		return c.react(ctx, m, rs.Send)
	})
	return rs, nil
}

// Send writes one message frame on the uplink.
func (r *RunStream) Send(_ context.Context, msg *agentv1.AgentClientMessage) error {
	b, err := clientBytes(msg)
	if err != nil {
		return fmt.Errorf("marshal client message: %w", err)
	}
	return r.WriteFrame(b, 0)
}

// WriteFrame writes a raw payload as one frame (gzip-compressed when Gzip).
func (r *RunStream) WriteFrame(payload []byte, flags byte) error {
	f := frame.Encode(flags, payload)
	if r.Gzip {
		f = frame.EncodeGzip(flags, payload)
	}
	r.mu.Lock()
	defer r.mu.Unlock()
	if _, err := r.body.Write(f); err != nil {
		return fmt.Errorf("write Run frame: %w", err)
	}
	return nil
}

// CloseSend ends the uplink with the client's end-of-stream frame.
func (r *RunStream) CloseSend() error {
	r.mu.Lock()
	defer r.mu.Unlock()
	if _, err := r.body.Write(frame.Encode(frame.FlagEndStream, []byte("{}"))); err != nil {
		return fmt.Errorf("write Run end: %w", err)
	}
	return r.body.Close()
}

// Close drops the call: the uplink breaks and the response is abandoned.
func (r *RunStream) Close() {
	_ = r.body.CloseWithError(io.ErrClosedPipe)
	r.Stream.Close()
}
