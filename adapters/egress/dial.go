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
// DialContext from the local address peer to the address local: a request
// arriving from peer on a listener of Keygate's at local came from Keygate
// itself. Both ends are compared, not the peer alone: Linux gives one
// local port to several outgoing connections to different destinations,
// so Keygate's connection to a model on 127.0.0.1 may share its source
// port with a client's connection to Keygate's own listener, and that
// client must not be taken for Keygate. An invalid local matches any
// destination (a caller that cannot tell its listener's address).
func (p *Policy) Originated(peer, local netip.AddrPort) bool {
	peer, local = plainAddrPort(peer), plainAddrPort(local)
	p.connsMu.RLock()
	defer p.connsMu.RUnlock()
	if local.IsValid() {
		return p.conns[connEnds{local: peer, remote: local}] > 0
	}
	for ends, n := range p.conns {
		if ends.local == peer && n > 0 {
			return true
		}
	}
	return false
}

// connEnds are a dialled connection's two ends, in their plain form.
type connEnds struct{ local, remote netip.AddrPort }

// plainAddrPort is ap without an IPv4 mapping or zone, as a dual-stack
// listener and a dialled connection may report the same end differently.
func plainAddrPort(ap netip.AddrPort) netip.AddrPort {
	if !ap.IsValid() {
		return ap
	}
	return netip.AddrPortFrom(ap.Addr().Unmap().WithZone(""), ap.Port())
}

func (p *Policy) track(c net.Conn) net.Conn {
	local, ok := c.LocalAddr().(*net.TCPAddr)
	remote, ok2 := c.RemoteAddr().(*net.TCPAddr)
	if !ok || !ok2 {
		return c
	}
	key := connEnds{local: plainAddrPort(local.AddrPort()), remote: plainAddrPort(remote.AddrPort())}
	p.connsMu.Lock()
	p.conns[key]++
	p.connsMu.Unlock()
	return &conn{Conn: c, p: p, key: key}
}

func (p *Policy) untrack(key connEnds) {
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
	key  connEnds
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
