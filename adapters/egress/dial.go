package egress

import (
	"context"
	"errors"
	"fmt"
	"io"
	"net"
	"net/netip"
	"sync"
	"syscall"
	"time"
)

// Dial timeouts: a TCP connect that has not completed by then will not.
const (
	dialTimeout = 30 * time.Second
	keepAlive   = 30 * time.Second
)

// DialContext opens a TCP connection to addr (host:port) if the policy
// allows every address it actually connects to: the decision runs in
// net.Dialer.Control, after resolution, once per address tried. A refusal
// is a *RefusedError (errors.Is ErrRefused). The connection is tracked for
// Originated until it is closed. Its signature is http.Transport's
// DialContext.
func (p *Policy) DialContext(ctx context.Context, network, addr string) (net.Conn, error) {
	return p.dial(ctx, network, addr, fullView)
}

func (p *Policy) dial(ctx context.Context, network, addr string, v view) (net.Conn, error) {
	switch network {
	case "tcp", "tcp4", "tcp6":
	default:
		return nil, fmt.Errorf("egress: dial %s: only TCP is allowed", network)
	}
	host, port, err := splitHostPort(addr)
	if err != nil {
		return nil, err
	}
	// A host whose addresses are known without DNS is decided first, as
	// the cgo resolver (getaddrinfo) would read it: the Go resolver would
	// ask DNS for 2130706433 instead.
	if decided, err := p.decideFixed(host, port, v); decided && err != nil {
		return nil, err
	}
	d := net.Dialer{
		Timeout:   dialTimeout,
		KeepAlive: keepAlive,
		Resolver:  p.resolver,
		ControlContext: func(_ context.Context, _, address string, _ syscall.RawConn) error {
			ap, err := netip.ParseAddrPort(address)
			if err != nil {
				return fmt.Errorf("egress: dial %s: %w", address, err)
			}
			return p.decide(host, ap, v)
		},
	}
	conn, err := d.DialContext(ctx, network, addr)
	if err != nil {
		var refused *RefusedError
		if errors.As(err, &refused) {
			return nil, refused // its message is complete; the dial's wrapping repeats the address
		}
		return nil, err
	}
	return p.track(conn), nil
}

// Originated reports whether a connection that is still open was dialled by
// DialContext from the local address peer: a request arriving from peer on
// one of Keygate's listeners came from Keygate itself.
func (p *Policy) Originated(peer netip.AddrPort) bool {
	peer = netip.AddrPortFrom(peer.Addr().Unmap().WithZone(""), peer.Port())
	p.connsMu.RLock()
	defer p.connsMu.RUnlock()
	return p.conns[peer] > 0
}

func (p *Policy) track(c net.Conn) net.Conn {
	tcp, ok := c.LocalAddr().(*net.TCPAddr)
	if !ok {
		return c
	}
	ap := tcp.AddrPort()
	key := netip.AddrPortFrom(ap.Addr().Unmap().WithZone(""), ap.Port())
	p.connsMu.Lock()
	p.conns[key]++
	p.connsMu.Unlock()
	return &conn{Conn: c, p: p, key: key}
}

func (p *Policy) untrack(key netip.AddrPort) {
	p.connsMu.Lock()
	defer p.connsMu.Unlock()
	if p.conns[key]--; p.conns[key] <= 0 {
		delete(p.conns, key)
	}
}

// conn is a dialled connection that leaves Originated's table when closed.
// It passes half-closes and ReadFrom (splice) on to the TCP connection.
type conn struct {
	net.Conn
	p    *Policy
	key  netip.AddrPort
	once sync.Once
}

func (c *conn) Close() error {
	c.once.Do(func() { c.p.untrack(c.key) })
	return c.Conn.Close()
}

// CloseWrite half-closes the connection, so a tunnel passes an EOF on.
func (c *conn) CloseWrite() error {
	if cw, ok := c.Conn.(interface{ CloseWrite() error }); ok {
		return cw.CloseWrite()
	}
	return c.Close()
}

// ReadFrom lets io.Copy into the connection use the TCP connection's
// zero-copy path.
func (c *conn) ReadFrom(r io.Reader) (int64, error) {
	if rf, ok := c.Conn.(io.ReaderFrom); ok {
		return rf.ReadFrom(r)
	}
	return io.Copy(struct{ io.Writer }{c.Conn}, r)
}
