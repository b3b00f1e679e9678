package cursortest

import (
	"bytes"
	"context"
	"errors"
	"fmt"
	"io"
	"net/http"
	"sync"

	"connectrpc.com/connect"
	"google.golang.org/protobuf/proto"

	"keygate/adapters/cursor/frame"
	agentv1 "keygate/gen/cursor/agent/v1"
	"keygate/gen/cursor/agent/v1/agentv1connect"
)

// Stream is one downlink being read: a RunSSE response or the response half
// of an HTTP/2 Run.
type Stream struct {
	// Status and Header are the HTTP response's.
	Status     int
	ProtoMajor int
	Header     http.Header

	cancel context.CancelFunc
	done   chan struct{}

	mu      sync.Mutex
	msgs    []*agentv1.AgentServerMessage
	ended   bool
	endErr  *connect.Error
	readErr error
}

// Subscribe opens RunSSE for the client's request id, as the client does:
// an enveloped BidiRequestId with Content-Type application/connect+proto.
// KV requests on the stream are answered with BidiAppends.
func (c *Client) Subscribe(ctx context.Context) (*Stream, error) {
	body, err := proto.Marshal(&agentv1.BidiRequestId{RequestId: c.RequestID})
	if err != nil {
		return nil, fmt.Errorf("marshal request id: %w", err)
	}
	ctx, cancel := context.WithCancel(ctx)
	req, err := http.NewRequestWithContext(ctx, http.MethodPost, c.baseURL+agentv1connect.AgentServiceRunSSEProcedure,
		bytes.NewReader(frame.Encode(0, body)))
	if err != nil {
		cancel()
		return nil, fmt.Errorf("build RunSSE request: %w", err)
	}
	req.Header.Set("Content-Type", "application/connect+proto")
	req.Header.Set("Connect-Protocol-Version", "1")
	resp, err := c.http.Do(req)
	if err != nil {
		cancel()
		return nil, fmt.Errorf("open RunSSE: %w", err)
	}
	s := &Stream{Status: resp.StatusCode, ProtoMajor: resp.ProtoMajor, Header: resp.Header, cancel: cancel, done: make(chan struct{})}
	go s.read(ctx, resp.Body, func(ctx context.Context, m *agentv1.AgentServerMessage) error {
		return c.react(ctx, m, c.overlapped(ctx, s))
	})
	return s, nil
}

// overlapped is the RunSSE reply path: like Cursor's client, it numbers an
// append when the reply is made and sends it without waiting for the
// previous BidiAppend to return, so replies overlap on the wire and may
// reach the server out of order (the seqnos restore it). A reply whose
// context is already done is not made; one that was made is sent for as
// long as the stream lives (streamCtx), even if the replier's context ends
// meanwhile. A failed append fails the stream, as a synchronous one would.
func (c *Client) overlapped(streamCtx context.Context, s *Stream) Sender {
	return func(ctx context.Context, msg *agentv1.AgentClientMessage) error {
		if err := ctx.Err(); err != nil {
			return err
		}
		c.mu.Lock()
		seq := c.next
		c.next++
		c.mu.Unlock()
		go func() {
			err := c.SendAt(streamCtx, seq, msg)
			switch {
			case err != nil && streamCtx.Err() == nil:
				s.fail(fmt.Errorf("append %d: %w", seq, err))
			case err != nil:
				c.abandoned.Add(1)
			}
		}()
		return nil
	}
}

// read decodes frames until the end-of-stream frame or an error.
func (s *Stream) read(ctx context.Context, body io.ReadCloser, react func(context.Context, *agentv1.AgentServerMessage) error) {
	defer close(s.done)
	defer body.Close()
	frames := frame.NewReader(body, 0)
	for {
		f, err := frames.Next(ctx)
		if err != nil {
			s.fail(err)
			return
		}
		if f.EndStream() {
			endErr, err := frame.ParseEnd(f.Payload)
			s.mu.Lock()
			s.ended, s.endErr, s.readErr = true, endErr, err
			s.mu.Unlock()
			return
		}
		msg := &agentv1.AgentServerMessage{}
		if err := proto.Unmarshal(f.Payload, msg); err != nil {
			s.fail(fmt.Errorf("decode server message: %w", err))
			return
		}
		s.mu.Lock()
		s.msgs = append(s.msgs, msg)
		s.mu.Unlock()
		if err := react(ctx, msg); err != nil && !errors.Is(ctx.Err(), context.Canceled) {
			s.fail(err)
			return
		}
	}
}

func (s *Stream) fail(err error) {
	s.mu.Lock()
	defer s.mu.Unlock()
	s.readErr = err
}

// Messages returns the server messages received so far, heartbeats included.
func (s *Stream) Messages() []*agentv1.AgentServerMessage {
	s.mu.Lock()
	defer s.mu.Unlock()
	return append([]*agentv1.AgentServerMessage(nil), s.msgs...)
}

// Content returns the messages received so far without heartbeats.
func (s *Stream) Content() []*agentv1.AgentServerMessage {
	var out []*agentv1.AgentServerMessage
	for _, m := range s.Messages() {
		if !IsHeartbeat(m) {
			out = append(out, m)
		}
	}
	return out
}

// Texts returns the text deltas received so far, in order.
func (s *Stream) Texts() []string {
	var out []string
	for _, m := range s.Messages() {
		if t := TextOf(m); t != "" {
			out = append(out, t)
		}
	}
	return out
}

// Heartbeats counts the heartbeats received so far.
func (s *Stream) Heartbeats() int {
	n := 0
	for _, m := range s.Messages() {
		if IsHeartbeat(m) {
			n++
		}
	}
	return n
}

// Done is closed when reading stopped (end-of-stream or error).
func (s *Stream) Done() <-chan struct{} { return s.done }

// Ended reports whether the end-of-stream frame arrived.
func (s *Stream) Ended() bool {
	s.mu.Lock()
	defer s.mu.Unlock()
	return s.ended
}

// EndError is the end-of-stream error (nil for {} or before the end).
func (s *Stream) EndError() *connect.Error {
	s.mu.Lock()
	defer s.mu.Unlock()
	return s.endErr
}

// ReadError is the error that stopped reading early, if any.
func (s *Stream) ReadError() error {
	s.mu.Lock()
	defer s.mu.Unlock()
	return s.readErr
}

// Close drops the connection, as a client that goes away does.
func (s *Stream) Close() {
	s.cancel()
	<-s.done
}
