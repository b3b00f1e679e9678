package cursorproxy

import (
	"bufio"
	"context"
	"errors"
	"net"
	"net/http"
	"net/http/httputil"
	"sync"
	"time"

	"go.uber.org/zap"

	"keygate/ports"
)

// dialFailed answers a destination that could not be reached: 403 with the
// outbound policy's own words when the policy refused it (they name the
// destination and the setting that would allow it, never a secret), 502
// when it is allowed but did not answer.
func dialFailed(w http.ResponseWriter, addr string, err error) {
	if errors.Is(err, ports.ErrDestinationRefused) {
		http.Error(w, err.Error(), http.StatusForbidden)
		return
	}
	http.Error(w, "cannot reach "+addr, http.StatusBadGateway)
}

// newPlainForwarder forwards absolute-form plain-HTTP proxy requests
// (GET http://host/...), for the editor's few non-TLS fetches. They are not
// intercepted: Cursor's own API is HTTPS only. Connections are opened by
// dial (the Tunnel dialer, bounded in time), so the outbound policy and
// proxy apply to them too.
func newPlainForwarder(dial func(context.Context, string) (net.Conn, error), log *zap.Logger) http.Handler {
	transport := &http.Transport{
		DialContext:     func(ctx context.Context, _, addr string) (net.Conn, error) { return dial(ctx, addr) },
		IdleConnTimeout: 90 * time.Second,
	}
	rp := &httputil.ReverseProxy{
		Rewrite: func(pr *httputil.ProxyRequest) {
			pr.Out.Host = pr.In.Host
		},
		Transport:     transport,
		FlushInterval: -1,
		ErrorHandler: func(w http.ResponseWriter, r *http.Request, err error) {
			log.Info("plain proxy request", zap.String("host", r.URL.Host), zap.Error(err))
			closeAfter(w)
			dialFailed(w, r.URL.Host, err)
		},
	}
	return http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
		if r.URL.Scheme != "http" {
			closeAfter(w)
			http.Error(w, "only http:// URLs are proxied in absolute form; use CONNECT for https", http.StatusBadRequest)
			return
		}
		rp.ServeHTTP(w, r)
	})
}

// dialPlain opens a plain-HTTP forward's connection: dialling bounded by
// HandshakeTimeout, reads by TunnelIdleTimeout (a target that takes the
// request and stays silent that long, before or in the middle of its
// answer, is given up on), writes by WriteTimeout.
func (p *Proxy) dialPlain(ctx context.Context, addr string) (net.Conn, error) {
	ctx, cancel := context.WithTimeout(ctx, p.opts.HandshakeTimeout)
	defer cancel()
	c, err := p.opts.Tunnel(ctx, addr)
	if err != nil {
		return nil, err
	}
	return &readIdle{Conn: boundWrites(c, p.opts.WriteTimeout), idle: p.opts.TunnelIdleTimeout}, nil
}

// readIdle fails a read that brings nothing within idle.
type readIdle struct {
	net.Conn
	idle time.Duration
}

func (c *readIdle) Read(b []byte) (int, error) {
	_ = c.Conn.SetReadDeadline(time.Now().Add(c.idle))
	return c.Conn.Read(b)
}

// upgradeWriter is the ResponseWriter of a plain-HTTP forward: when the
// target switches protocols (101) and the reverse proxy takes the client
// connection over, upgraded tracks what it became, since the server no
// longer does.
type upgradeWriter struct {
	http.ResponseWriter
	upgraded func(net.Conn) (net.Conn, error)
}

// Unwrap lets http.ResponseController reach the server's writer.
func (u upgradeWriter) Unwrap() http.ResponseWriter { return u.ResponseWriter }

func (u upgradeWriter) Hijack() (net.Conn, *bufio.ReadWriter, error) {
	c, brw, err := http.NewResponseController(u.ResponseWriter).Hijack()
	if err != nil {
		return nil, nil, err
	}
	tracked, err := u.upgraded(c)
	if err != nil {
		_ = c.Close()
		return nil, nil, err
	}
	return tracked, brw, nil
}

// upgraded tracks an upgraded plain-HTTP connection as the tunnels are:
// cut when token is revoked or the proxy closes, counted towards user's
// limits, forgotten when the reverse proxy closes it. Reads from the
// target stay bounded by TunnelIdleTimeout (dialPlain), so a quiet one
// ends too.
func (p *Proxy) upgraded(token, user string) func(net.Conn) (net.Conn, error) {
	return func(c net.Conn) (net.Conn, error) {
		if !p.track(c) {
			return nil, net.ErrClosed
		}
		if err := p.sessions.admit(c, token, user); err != nil {
			p.untrack(c)
			return nil, err
		}
		return &releasingConn{Conn: c, release: func() { p.sessions.remove(c); p.untrack(c) }}, nil
	}
}

// releasingConn runs release once when closed.
type releasingConn struct {
	net.Conn
	once    sync.Once
	release func()
}

func (c *releasingConn) Close() error {
	c.once.Do(c.release)
	return c.Conn.Close()
}

// CloseWrite passes a half-close on when the connection supports one.
func (c *releasingConn) CloseWrite() error { return closeWrite(c.Conn) }
