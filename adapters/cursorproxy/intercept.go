package cursorproxy

import (
	"bufio"
	"context"
	"crypto/tls"
	"errors"
	"fmt"
	"net"
	"net/http"
	"time"

	"go.uber.org/zap"

	"keygate/adapters/upstream"
	"keygate/domain/identity"
)

// ErrNotIntercepted means a TLS client asked (by SNI) for a host the proxy does
// not intercept inside a tunnel it opened for a Cursor host.
var ErrNotIntercepted = errors.New("host is not intercepted")

const connectOK = "HTTP/1.1 200 Connection established\r\n\r\n"

// intercept answers a CONNECT to a Cursor host: 200, then TLS with a leaf
// for the host, then the connection joins the internal server.
// The connection is admitted under token and the user's limits before the
// CONNECT is answered, and tracked until the internal server closes it, so
// that revoking the token cuts it.
func (p *Proxy) intercept(w http.ResponseWriter, r *http.Request, id identity.Identity, token string) {
	authority := withPort(r.Host)
	host, port, _ := net.SplitHostPort(authority)
	session := &slot{}
	if err := p.sessions.admit(session, token, id.UserID); err != nil {
		p.refuseOverLimit(w, id, err)
		return
	}
	pushed := false
	defer func() {
		if !pushed {
			p.sessions.remove(session)
		}
	}()
	conn, err := p.hijack(w)
	if err != nil {
		p.log.Error("hijack CONNECT", zap.Error(err))
		return
	}
	if !p.track(conn) {
		return
	}
	defer p.untrack(conn)
	_ = conn.SetDeadline(time.Now().Add(p.opts.HandshakeTimeout))
	if _, err := conn.Write([]byte(connectOK)); err != nil {
		_ = conn.Close()
		return
	}
	tlsConn := tls.Server(conn, &tls.Config{
		GetCertificate: p.certificateFor(host),
		NextProtos:     []string{"http/1.1"},
		MinVersion:     tls.VersionTLS12,
	})
	if err := tlsConn.HandshakeContext(r.Context()); err != nil {
		// Usually a client that does not trust the CA yet: the most common
		// setup mistake, so it is worth an info line.
		p.log.Info("TLS handshake with client failed; does it trust Keygate's CA?", zap.String("host", host), zap.Error(err))
		_ = conn.Close()
		return
	}
	_ = conn.SetDeadline(time.Time{})
	if sni := tlsConn.ConnectionState().ServerName; sni != "" {
		authority = net.JoinHostPort(sni, port)
	}
	if !session.bind(conn) {
		return // revoked during the handshake
	}
	pushed = true
	ic := &interceptedConn{Conn: tlsConn, authority: authority, id: id, release: func() { p.sessions.remove(session) }}
	if !p.conns.push(ic) {
		_ = ic.Close()
	}
}

// certificateFor mints for the SNI name, or the CONNECT host when the
// client sent none, and never for a host outside the interception rule.
func (p *Proxy) certificateFor(connectHost string) func(*tls.ClientHelloInfo) (*tls.Certificate, error) {
	return func(hello *tls.ClientHelloInfo) (*tls.Certificate, error) {
		name := hello.ServerName
		if name == "" {
			name = connectHost
		}
		if !p.opts.Intercept(name) {
			return nil, fmt.Errorf("%s: %w", name, ErrNotIntercepted)
		}
		return p.opts.Certificate(name)
	}
}

// route dispatches one request from an intercepted connection. The client
// cannot choose the upstream: HeaderUpstreamURL is always rebuilt from the
// host the TLS session was opened for.
func (p *Proxy) route(w http.ResponseWriter, r *http.Request) {
	authority, _ := r.Context().Value(authorityKey{}).(string)
	r.Header.Set(upstream.HeaderUpstreamURL, upstream.OriginalURL(authority, r))
	r.Body = p.boundBody(w, r.Body)
	if p.draining.Load() {
		w.Header().Set("Connection", "close") // see Drain
	}
	if p.opts.IsKeygatePath(r.URL.Path) {
		p.opts.Keygate.ServeHTTP(w, r)
		return
	}
	// A proxy must be able to read the client's body while the answer
	// already streams back; HTTP/1 servers refuse that unless told, and
	// then the body must not be read once this handler returned.
	_ = http.NewResponseController(w).EnableFullDuplex()
	if r.Body != nil && r.Body != http.NoBody {
		held := holdBody(w, r.Body)
		defer held.finish(w)
		r.Body = held
	}
	p.opts.Upstream.ServeHTTP(w, r)
}

// interceptedConn is a decrypted client connection with what the CONNECT
// established: the host it was for and who opened it.
type interceptedConn struct {
	net.Conn
	authority string
	id        identity.Identity
	// release stops tracking the connection for revocation.
	release func()
}

// Close is called by the internal server when it is done with the
// connection.
func (c *interceptedConn) Close() error {
	c.release()
	return c.Conn.Close()
}

type authorityKey struct{}

// connContext puts the connection's identity and host on the context of
// every request read from it.
func connContext(ctx context.Context, c net.Conn) context.Context {
	ic, ok := c.(*interceptedConn)
	if !ok {
		return ctx
	}
	return context.WithValue(identity.NewContext(ctx, ic.id), authorityKey{}, ic.authority)
}

// hijack takes the client connection over, keeping any bytes the server
// already buffered (a client may send its TLS hello right behind CONNECT),
// with every write bounded by WriteTimeout.
func (p *Proxy) hijack(w http.ResponseWriter) (net.Conn, error) {
	conn, brw, err := http.NewResponseController(w).Hijack()
	if err != nil {
		return nil, fmt.Errorf("hijack: %w", err)
	}
	conn = boundWrites(conn, p.opts.WriteTimeout)
	if brw.Reader.Buffered() > 0 {
		return &bufferedConn{Conn: conn, r: brw.Reader}, nil
	}
	return conn, nil
}

type bufferedConn struct {
	net.Conn
	r *bufio.Reader
}

func (c *bufferedConn) Read(p []byte) (int, error) { return c.r.Read(p) }

// CloseWrite passes a half-close on when the connection supports one.
func (c *bufferedConn) CloseWrite() error { return closeWrite(c.Conn) }

// withPort adds the HTTPS port to an authority that has none.
func withPort(authority string) string {
	if _, _, err := net.SplitHostPort(authority); err == nil {
		return authority
	}
	return net.JoinHostPort(authority, "443")
}
