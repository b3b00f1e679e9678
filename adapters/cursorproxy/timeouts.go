package cursorproxy

import (
	"errors"
	"io"
	"net"
	"net/http"
	"time"
)

// boundBody bounds the reading of a request body: each read must bring
// something within BodyIdleTimeout, and the whole body must have arrived
// within BodyTimeout of the first read. The response is not bounded: once
// the body ended, no read sets a deadline again, because the server then
// watches the connection for a client hang-up, and a deadline expiring
// there would cancel the request's context and cut a long stream (RunSSE).
func (p *Proxy) boundBody(w http.ResponseWriter, body io.ReadCloser) io.ReadCloser {
	if body == nil || body == http.NoBody {
		return body
	}
	return &boundedBody{ReadCloser: body, rc: http.NewResponseController(w), idle: p.opts.BodyIdleTimeout, total: p.opts.BodyTimeout}
}

type boundedBody struct {
	io.ReadCloser
	rc          *http.ResponseController
	idle, total time.Duration
	end         time.Time
	done        bool
}

func (b *boundedBody) Read(p []byte) (int, error) {
	if b.done {
		return b.ReadCloser.Read(p)
	}
	now := time.Now()
	if b.end.IsZero() {
		b.end = now.Add(b.total)
	}
	deadline := now.Add(b.idle)
	if deadline.After(b.end) {
		deadline = b.end
	}
	_ = b.rc.SetReadDeadline(deadline)
	n, err := b.ReadCloser.Read(p)
	if err == io.EOF {
		// Lift the deadline for the rest of the exchange (net/http does
		// too when it starts watching for a hang-up). After any other
		// error it stays: the connection is finished, and the server's
		// attempt to drain the rest of the body must fail fast too.
		b.done = true
		_ = b.rc.SetReadDeadline(time.Time{})
	}
	return n, err
}

// writeBounded fails a write that does not complete within timeout. Reads
// are left alone: streams and tunnels may legitimately be quiet for long,
// and their idleness is bounded elsewhere.
type writeBounded struct {
	net.Conn
	timeout time.Duration
}

func (c *writeBounded) Write(b []byte) (int, error) {
	_ = c.Conn.SetWriteDeadline(time.Now().Add(c.timeout))
	return c.Conn.Write(b)
}

// CloseWrite passes a half-close on when the connection supports one.
func (c *writeBounded) CloseWrite() error { return closeWrite(c.Conn) }

// boundWrites wraps c so that every write is bounded by timeout (once: a
// connection Run accepted already is).
func boundWrites(c net.Conn, timeout time.Duration) net.Conn {
	if _, ok := c.(*writeBounded); ok {
		return c
	}
	return &writeBounded{Conn: c, timeout: timeout}
}

// writeBoundedListener bounds the writes of every connection it accepts.
type writeBoundedListener struct {
	net.Listener
	timeout time.Duration
}

func (l writeBoundedListener) Accept() (net.Conn, error) {
	c, err := l.Listener.Accept()
	if err != nil {
		return nil, err
	}
	return boundWrites(c, l.timeout), nil
}

// errNoHalfClose: the connection cannot close only its writing side.
var errNoHalfClose = errors.New("connection has no half-close")

// closeWrite half-closes c when it supports that.
func closeWrite(c net.Conn) error {
	if cw, ok := c.(interface{ CloseWrite() error }); ok {
		return cw.CloseWrite()
	}
	return errNoHalfClose
}
