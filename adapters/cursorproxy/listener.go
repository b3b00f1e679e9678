package cursorproxy

import (
	"net"
	"sync"
)

// chanListener hands connections the proxy accepted and decrypted to the
// internal http.Server.
type chanListener struct {
	ch   chan net.Conn
	done chan struct{}
	once sync.Once
}

var _ net.Listener = (*chanListener)(nil)

func newChanListener() *chanListener {
	return &chanListener{ch: make(chan net.Conn), done: make(chan struct{})}
}

// push offers c to the server; false once the listener is closed.
func (l *chanListener) push(c net.Conn) bool {
	select {
	case l.ch <- c:
		return true
	case <-l.done:
		return false
	}
}

func (l *chanListener) Accept() (net.Conn, error) {
	select {
	case c := <-l.ch:
		return c, nil
	case <-l.done:
		return nil, net.ErrClosed
	}
}

func (l *chanListener) Close() error {
	l.once.Do(func() { close(l.done) })
	return nil
}

func (l *chanListener) Addr() net.Addr { return internalAddr{} }

type internalAddr struct{}

func (internalAddr) Network() string { return "intercepted" }
func (internalAddr) String() string  { return "keygate-proxy" }
