package cursorproxy

import (
	"context"
	"crypto/tls"
	"errors"
	"fmt"
	"net"
	"net/http"
	"sync"
	"time"

	"go.uber.org/zap"

	"keygate/adapters/upstream"
	"keygate/ports"
)

// DefaultAddr is the laptop default for the proxy listener, next to
// Keygate's main listener (127.0.0.1:7878).
const DefaultAddr = "127.0.0.1:7879"

// Options configure a Proxy. Certificate, Keygate, IsKeygatePath, Upstream
// and Tunnel are required.
type Options struct {
	// Addr is the listen address for Run (DefaultAddr when empty).
	Addr string
	// Certificate returns the leaf for an intercepted host name, usually
	// (*ca.Leaves).Leaf.
	Certificate func(host string) (*tls.Certificate, error)
	// Keygate serves the routes Keygate implements; IsKeygatePath says which
	// paths those are (see RouteTable).
	Keygate       http.Handler
	IsKeygatePath func(path string) bool
	// Upstream serves every other request on an intercepted host, usually an
	// *upstream.Forwarder. Requests reach it with upstream.HeaderUpstreamURL
	// set to the original URL.
	Upstream http.Handler
	// Tunnel opens the raw connection for a CONNECT that is not intercepted,
	// usually (*upstream.Forwarder).DialTunnel.
	Tunnel func(ctx context.Context, addr string) (net.Conn, error)
	// Auth checks proxy credentials (company mode). Nil: no credentials are
	// asked for and every caller is identity.Local.
	Auth ports.ProxyAuthenticator
	// Intercept says which CONNECT hosts are intercepted
	// (upstream.IsCursorHost when nil).
	Intercept func(host string) bool
	// HandshakeTimeout bounds the CONNECT reply plus the TLS handshake, and
	// dialling a tunnel (10 s when <= 0).
	HandshakeTimeout time.Duration
	// ShutdownTimeout bounds Run's graceful shutdown (5 s when <= 0).
	ShutdownTimeout time.Duration
	// ListenTLS, when set, makes Run serve the proxy itself over TLS
	// (an https:// proxy URL), so that gateway tokens never cross a
	// company network in clear text. Nil serves plain HTTP, which is
	// right on loopback.
	ListenTLS *tls.Config
}

// Proxy is the forward proxy. Serve it with Run, or mount it as the
// handler of an http.Server and call Close when that server stops.
type Proxy struct {
	opts  Options
	log   *zap.Logger
	inner *http.Server
	conns *chanListener
	plain http.Handler

	mu      sync.Mutex
	tunnels map[net.Conn]struct{}
	closed  bool
}

var _ http.Handler = (*Proxy)(nil)

// Errors New reports for options it cannot run with.
var (
	// ErrMissingOption: a required Options field is nil.
	ErrMissingOption = errors.New("missing proxy option")
	// ErrOpenProxy: the proxy would listen beyond loopback without asking
	// for credentials, letting anyone who reaches it use Keygate's keys
	// and tunnel anywhere.
	ErrOpenProxy = errors.New("a proxy reachable from the network needs an authenticator")
)

// New builds a Proxy and starts its internal server for intercepted
// connections; Close stops it.
func New(opts Options, log *zap.Logger) (*Proxy, error) {
	for _, o := range []struct {
		name    string
		missing bool
	}{
		{"Certificate", opts.Certificate == nil}, {"Keygate", opts.Keygate == nil},
		{"IsKeygatePath", opts.IsKeygatePath == nil}, {"Upstream", opts.Upstream == nil}, {"Tunnel", opts.Tunnel == nil},
	} {
		if o.missing {
			return nil, fmt.Errorf("%s: %w", o.name, ErrMissingOption)
		}
	}
	if opts.Addr == "" {
		opts.Addr = DefaultAddr
	}
	if opts.Auth == nil && !isLoopback(opts.Addr) {
		return nil, fmt.Errorf("listen address %s: %w", opts.Addr, ErrOpenProxy)
	}
	if opts.Intercept == nil {
		opts.Intercept = upstream.IsCursorHost
	}
	if opts.HandshakeTimeout <= 0 {
		opts.HandshakeTimeout = 10 * time.Second
	}
	if opts.ShutdownTimeout <= 0 {
		opts.ShutdownTimeout = 5 * time.Second
	}
	p := &Proxy{opts: opts, log: log, conns: newChanListener(), tunnels: map[net.Conn]struct{}{}}
	p.plain = newPlainForwarder(opts.Tunnel, log)
	p.inner = &http.Server{
		Handler:           http.HandlerFunc(p.route),
		ConnContext:       connContext,
		ReadHeaderTimeout: 30 * time.Second,
		IdleTimeout:       2 * time.Minute,
		ErrorLog:          zap.NewStdLog(log.Named("intercepted")),
	}
	go func() { _ = p.inner.Serve(p.conns) }()
	return p, nil
}

// ServeHTTP handles what a client sends to the proxy itself: CONNECT
// (intercepted or tunnelled) and absolute-form plain-HTTP requests. Both
// need credentials in company mode. Anything else gets 400.
func (p *Proxy) ServeHTTP(w http.ResponseWriter, r *http.Request) {
	switch {
	case r.Method == http.MethodConnect:
		id, ok := p.authenticate(w, r)
		if !ok {
			return
		}
		if p.opts.Intercept(r.Host) {
			p.intercept(w, r, id)
		} else {
			p.tunnel(w, r)
		}
	case r.URL.IsAbs():
		if _, ok := p.authenticate(w, r); ok {
			p.plain.ServeHTTP(w, r)
		}
	default:
		http.Error(w, "this is Keygate's Cursor proxy: send CONNECT or absolute-form requests", http.StatusBadRequest)
	}
}

// Run listens on Options.Addr and serves until ctx is cancelled, then shuts
// down within ShutdownTimeout and closes the proxy. ready, if non-nil,
// receives the bound address.
func (p *Proxy) Run(ctx context.Context, ready func(net.Addr)) error {
	var lc net.ListenConfig
	ln, err := lc.Listen(ctx, "tcp", p.opts.Addr)
	if err != nil {
		return fmt.Errorf("listen on %s: %w", p.opts.Addr, err)
	}
	srv := &http.Server{
		Handler:           p,
		ReadHeaderTimeout: 30 * time.Second,
		ErrorLog:          zap.NewStdLog(p.log),
		BaseContext:       func(net.Listener) context.Context { return context.WithoutCancel(ctx) },
	}
	if p.opts.ListenTLS != nil {
		ln = tls.NewListener(ln, p.opts.ListenTLS)
	}
	p.log.Info("proxy listening", zap.String("addr", ln.Addr().String()), zap.Bool("tls", p.opts.ListenTLS != nil))
	if ready != nil {
		ready(ln.Addr())
	}
	served := make(chan error, 1)
	go func() { served <- srv.Serve(ln) }()
	select {
	case err := <-served:
		return errors.Join(fmt.Errorf("serve proxy: %w", err), p.Close(context.Background()))
	case <-ctx.Done():
	}
	sctx, cancel := context.WithTimeout(context.Background(), p.opts.ShutdownTimeout)
	defer cancel()
	err = srv.Shutdown(sctx)
	return errors.Join(err, p.Close(sctx))
}

// Close stops accepting intercepted connections, lets requests in flight
// finish until ctx is done, then cuts them and every open tunnel.
func (p *Proxy) Close(ctx context.Context) error {
	p.mu.Lock()
	p.closed = true
	tunnels := p.tunnels
	p.tunnels = map[net.Conn]struct{}{}
	p.mu.Unlock()
	for c := range tunnels {
		_ = c.Close()
	}
	err := p.inner.Shutdown(ctx)
	if err != nil {
		err = errors.Join(err, p.inner.Close())
	}
	return err
}

// track registers a hijacked connection so that Close can cut it; it
// returns false (and closes c) once the proxy is closed.
func (p *Proxy) track(c net.Conn) bool {
	p.mu.Lock()
	defer p.mu.Unlock()
	if p.closed {
		_ = c.Close()
		return false
	}
	p.tunnels[c] = struct{}{}
	return true
}

func (p *Proxy) untrack(c net.Conn) {
	p.mu.Lock()
	delete(p.tunnels, c)
	p.mu.Unlock()
}

// isLoopback reports whether addr (host:port) only listens on loopback.
func isLoopback(addr string) bool {
	host, _, err := net.SplitHostPort(addr)
	if err != nil {
		return false
	}
	if host == "localhost" {
		return true
	}
	ip := net.ParseIP(host)
	return ip != nil && ip.IsLoopback()
}
