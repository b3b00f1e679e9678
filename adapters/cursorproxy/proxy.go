package cursorproxy

import (
	"context"
	"crypto/tls"
	"errors"
	"fmt"
	"net"
	"net/http"
	"sync"
	"sync/atomic"
	"time"

	"go.uber.org/zap"

	"keygate/adapters/upstream"
	"keygate/domain/destination"
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
	// Tunnel opens the raw connection for a CONNECT that is not intercepted
	// and for plain-HTTP forwards: in production a guarded dialer that
	// refuses inward addresses and Keygate's own listeners, over
	// (*upstream.Forwarder).DialTunnel.
	Tunnel func(ctx context.Context, addr string) (net.Conn, error)
	// Auth checks proxy credentials (company mode). Nil: no credentials are
	// asked for and every caller is identity.Local.
	Auth ports.ProxyAuthenticator
	// Intercept says which CONNECT hosts are intercepted
	// (upstream.IsCursorHost when nil).
	Intercept func(host string) bool
	// Passthrough lists the hosts a company proxy (one with Auth) tunnels,
	// and forwards plain HTTP to, besides the intercepted ones; every other
	// destination is answered 403. Empty admits only intercepted hosts.
	// Without Auth (a laptop) every host passes and Tunnel alone decides.
	Passthrough destination.Allowlist
	// PassthroughSetting names, in the 403 answer, the setting an operator
	// adds a host to (for example an environment variable).
	PassthroughSetting string
	// HandshakeTimeout bounds the CONNECT reply plus the TLS handshake, and
	// dialling a tunnel (10 s when <= 0).
	HandshakeTimeout time.Duration
	// HeaderTimeout bounds reading a request's header, on the proxy's
	// listener and inside intercepted connections (10 s when <= 0): a
	// client is never slow to send a few hundred bytes it already has.
	HeaderTimeout time.Duration
	// IdleTimeout closes a keep-alive connection, the proxy's own or an
	// intercepted one, that waits this long for its next request (2 min
	// when <= 0: longer than the 60 s most load balancers allow, so an
	// editor's connection pool rarely notices, short enough that
	// abandoned connections do not pile up).
	IdleTimeout time.Duration
	// BodyIdleTimeout cuts a request whose body sends nothing for this
	// long (30 s when <= 0); BodyTimeout bounds reading the whole body
	// (5 min when <= 0: a few MB of images over a slow uplink fit, a body
	// dripped a byte at a time does not). Responses are not bounded: RunSSE
	// streams for as long as the turn runs, with heartbeats.
	BodyIdleTimeout, BodyTimeout time.Duration
	// WriteTimeout fails a write to a client, or to a tunnel's target,
	// that cannot complete for this long (1 min when <= 0): a peer that
	// stops reading would otherwise hold the connection and the turn
	// behind it forever. Writes are at most a TLS record or a 32 KiB copy
	// buffer, so this bounds progress, not the length of a stream.
	WriteTimeout time.Duration
	// TunnelIdleTimeout closes a tunnel in which no byte moved in either
	// direction for this long (2 min when <= 0, as IdleTimeout: tunnels
	// carry the editor's keep-alive HTTPS connections to the marketplace
	// and downloads, which go quiet between requests; a long poll or a
	// WebSocket with pings stays well inside it).
	TunnelIdleTimeout time.Duration
	// RecheckInterval is how often the gateway tokens of open connections
	// are authenticated again (5 s when <= 0), so that a revoked or
	// expired token loses its intercepted connections, tunnels and
	// keep-alive connections within about that time, on every replica.
	// One Authenticate per distinct token per round, whatever the number
	// of connections it opened.
	RecheckInterval time.Duration
	// MaxConnsPerUser bounds the connections one user (in company mode)
	// holds open through the proxy at once: intercepted, tunnelled,
	// keep-alive and upgraded plain HTTP (256 when <= 0: an editor keeps
	// a handful, a few windows and agents a few dozen). Each costs tens
	// of KiB, an intercepted one most (TLS buffers).
	MaxConnsPerUser int
	// MaxTokensPerUser bounds the distinct gateway tokens one user's open
	// connections use (8 when <= 0: one per machine), and MaxTokens those
	// of everyone (10,000 when <= 0): each costs an Authenticate per
	// recheck round. A connection over a limit is refused (429 for the
	// user's own, 503 for the proxy's) and closed.
	MaxTokensPerUser, MaxTokens int
	// ShutdownTimeout bounds Run's graceful shutdown (5 s when <= 0).
	ShutdownTimeout time.Duration
	// ListenTLS, when set, makes Run serve the proxy itself over TLS
	// (an https:// proxy URL), so that gateway tokens never cross a
	// company network in clear text. Nil serves plain HTTP, which is
	// right on loopback.
	ListenTLS *tls.Config
	// TLSTerminated says a TCP-level TLS terminator in front of the proxy
	// encrypts what clients send (an https:// proxy URL that is not
	// Addr), so that a plain-HTTP company proxy beyond loopback is fine.
	TLSTerminated bool
}

// Proxy is the forward proxy. Serve it with Run, or mount it as the
// handler of an http.Server and call Close when that server stops (the
// listener's own timeouts and the revocation of keep-alive plain-HTTP
// connections then are that server's business).
type Proxy struct {
	opts  Options
	log   *zap.Logger
	inner *http.Server
	conns *chanListener
	plain http.Handler
	// sessions are the connections opened with each gateway token.
	sessions *sessions
	// stopRecheck ends the revocation loop.
	stopRecheck context.CancelFunc

	// draining: every intercepted response closes its connection.
	draining atomic.Bool

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
	// ErrClearTextTokens: a company proxy would listen beyond loopback in
	// plain HTTP with nothing in front to encrypt, so every gateway token
	// would cross the network readable by anyone on the path.
	ErrClearTextTokens = errors.New("a company proxy reachable from the network must not take gateway tokens in clear text")
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
	if opts.Auth != nil && opts.ListenTLS == nil && !opts.TLSTerminated && !isLoopback(opts.Addr) {
		return nil, fmt.Errorf("listen address %s: %w", opts.Addr, ErrClearTextTokens)
	}
	if opts.Intercept == nil {
		opts.Intercept = upstream.IsCursorHost
	}
	for _, d := range []struct {
		v   *time.Duration
		def time.Duration
	}{
		{&opts.HandshakeTimeout, 10 * time.Second}, {&opts.HeaderTimeout, 10 * time.Second},
		{&opts.IdleTimeout, 2 * time.Minute}, {&opts.BodyIdleTimeout, 30 * time.Second},
		{&opts.BodyTimeout, 5 * time.Minute}, {&opts.WriteTimeout, time.Minute},
		{&opts.TunnelIdleTimeout, 2 * time.Minute}, {&opts.RecheckInterval, 5 * time.Second},
		{&opts.ShutdownTimeout, 5 * time.Second},
	} {
		if *d.v <= 0 {
			*d.v = d.def
		}
	}
	for _, n := range []struct {
		v   *int
		def int
	}{{&opts.MaxConnsPerUser, 256}, {&opts.MaxTokensPerUser, 8}, {&opts.MaxTokens, 10_000}} {
		if *n.v <= 0 {
			*n.v = n.def
		}
	}
	p := &Proxy{opts: opts, log: log, conns: newChanListener(), tunnels: map[net.Conn]struct{}{},
		sessions: newSessions(limits{connsPerUser: opts.MaxConnsPerUser, tokensPerUser: opts.MaxTokensPerUser, tokens: opts.MaxTokens})}
	p.plain = newPlainForwarder(p.dialPlain, log)
	p.inner = &http.Server{
		Handler:           http.HandlerFunc(p.route),
		ConnContext:       connContext,
		ReadHeaderTimeout: opts.HeaderTimeout,
		IdleTimeout:       opts.IdleTimeout,
		ErrorLog:          zap.NewStdLog(log.Named("intercepted")),
	}
	go func() { _ = p.inner.Serve(p.conns) }()
	ctx, stop := context.WithCancel(context.Background())
	p.stopRecheck = stop
	if opts.Auth != nil {
		go p.recheckLoop(ctx)
	}
	return p, nil
}

// ServeHTTP handles what a client sends to the proxy itself: CONNECT
// (intercepted or tunnelled) and absolute-form plain-HTTP requests. Both
// need credentials in company mode, and then reach only intercepted and
// pass-through hosts. Intercepted hosts are reached by CONNECT on port 443
// only, in every mode: Cursor speaks HTTPS to them, and any other port or
// plain HTTP would be a way past the pass-through list to wherever such a
// name resolves. Anything else gets 400. Every refusal closes the
// connection, so that a refused client holds nothing open.
func (p *Proxy) ServeHTTP(w http.ResponseWriter, r *http.Request) {
	switch {
	case r.Method == http.MethodConnect:
		id, token, ok := p.authenticate(w, r)
		if !ok {
			return
		}
		host, port := splitAuthority(r.Host, 443)
		switch {
		case p.opts.Intercept(host) && port != 443:
			p.refuseIntercepted(w, r, id, host, port)
		case p.opts.Intercept(host):
			p.intercept(w, r, id, token)
		case !p.passes(host, port, 443):
			p.refuse(w, r, id, host, port)
		default:
			p.tunnel(w, r, id, token)
		}
	case r.URL.IsAbs():
		id, token, ok := p.authenticate(w, r)
		if !ok {
			return
		}
		host, port := splitAuthority(r.URL.Host, 80)
		if p.opts.Intercept(host) {
			p.refuseIntercepted(w, r, id, host, port)
			return
		}
		if !p.passes(host, port, 80) {
			p.refuse(w, r, id, host, port)
			return
		}
		if err := p.trackPlain(r, token, id.UserID); err != nil {
			p.refuseOverLimit(w, id, err)
			return
		}
		r.Body = p.boundBody(w, r.Body)
		p.plain.ServeHTTP(upgradeWriter{ResponseWriter: w, upgraded: p.upgraded(token, id.UserID)}, r)
	default:
		closeAfter(w)
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
		ReadHeaderTimeout: p.opts.HeaderTimeout,
		IdleTimeout:       p.opts.IdleTimeout,
		ErrorLog:          zap.NewStdLog(p.log),
		BaseContext:       func(net.Listener) context.Context { return context.WithoutCancel(ctx) },
		// Keep-alive plain-HTTP connections are tracked by their token,
		// so that revoking it cuts them; hijacked ones (CONNECT) are
		// tracked by what they became.
		ConnContext: func(ctx context.Context, c net.Conn) context.Context {
			return context.WithValue(ctx, clientConnKey{}, c)
		},
		ConnState: func(c net.Conn, st http.ConnState) {
			if st == http.StateClosed || st == http.StateHijacked {
				p.sessions.remove(c)
			}
		},
	}
	ln = writeBoundedListener{Listener: ln, timeout: p.opts.WriteTimeout}
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
		return errors.Join(fmt.Errorf("serve proxy: %w", err), p.Close(context.WithoutCancel(ctx)))
	case <-ctx.Done():
	}
	sctx, cancel := context.WithTimeout(context.WithoutCancel(ctx), p.opts.ShutdownTimeout)
	defer cancel()
	err = srv.Shutdown(sctx)
	return errors.Join(err, p.Close(sctx))
}

// Drain makes every intercepted connection close after its next response
// (Connection: close): the client's request after it opens a new
// connection, which a load balancer sends to a replica that is not
// stopping, instead of reusing one to this replica, which refuses a new
// turn's stream as it drains. Idle connections are not closed here: a
// client may be sending on one at that moment, and a POST that meets a
// closing connection fails rather than being retried.
func (p *Proxy) Drain() { p.draining.Store(true) }

// Close stops accepting intercepted connections, lets requests in flight
// finish until ctx is done, then cuts them and every open tunnel.
func (p *Proxy) Close(ctx context.Context) error {
	p.stopRecheck()
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
