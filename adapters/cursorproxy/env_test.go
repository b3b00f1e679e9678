package cursorproxy_test

import (
	"bufio"
	"context"
	"crypto/tls"
	"crypto/x509"
	"fmt"
	"io"
	"net"
	"net/http"
	"net/http/httptest"
	"net/url"
	"sync"
	"time"

	. "github.com/onsi/ginkgo/v2"
	. "github.com/onsi/gomega"
	"go.uber.org/zap"

	"keygate/adapters/ca"
	"keygate/adapters/cursorproxy"
	"keygate/adapters/upstream"
	"keygate/adapters/upstream/upstreamtest"
	"keygate/domain/identity"
	"keygate/ports"
)

// env is a running proxy between a client and three stand-ins: Keygate's
// handlers, a fake Cursor posing as every *.cursor.sh host, and an
// unrelated TLS site (example.com) that must only ever be tunnelled.
type env struct {
	Root      *ca.Authority
	ProxyAddr string
	// ProxyScheme is "http", or "https" when the proxy itself speaks TLS.
	ProxyScheme string
	Fake        *upstreamtest.FakeCursor
	Other       *httptest.Server
	Plain       *httptest.Server
	// Silent (silent.example:443) accepts connections and never says a
	// word; Quit receives once per connection it saw closed.
	Silent net.Listener
	Quit   chan struct{}
	// Echo (echo.example:443) writes back whatever it reads.
	Echo      net.Listener
	Forwarder *upstream.Forwarder
	// Dialed lists every address the proxy asked its Tunnel dialer for.
	Dialed func() []string
	// Pool trusts the installation root and the unrelated site, as a
	// client set up by `keygate cursor setup` would.
	Pool *x509.CertPool
	// Stop cancels Run and waits for it to return its error.
	Stop func() error
	// Proxy is the proxy under test.
	Proxy *cursorproxy.Proxy
}

// envOptions vary the proxy under test.
type envOptions struct {
	Auth   ports.ProxyAuthenticator
	Routes map[string]http.Handler
	Cursor http.Handler // the fake Cursor's handler
	// ListenTLS serves the proxy itself over TLS with a leaf for 127.0.0.1.
	ListenTLS bool
	// Tune changes the proxy's options last (timeouts, pass-through list).
	Tune func(*cursorproxy.Options)
	// Log is the proxy's logger (none when nil).
	Log *zap.Logger
	// Forwarder changes the upstream forwarder's options last (the cloud
	// policy and its ledger).
	Forwarder func(*upstream.Options)
}

func startEnv(o envOptions) *env {
	root, _, err := ca.Generate(time.Now(), "installation root")
	Expect(err).NotTo(HaveOccurred())
	e := &env{Root: root, ProxyScheme: "http"}

	e.Fake, err = upstreamtest.NewFakeCursor(o.Cursor)
	Expect(err).NotTo(HaveOccurred())
	DeferCleanup(e.Fake.Close)
	e.Other = httptest.NewTLSServer(http.HandlerFunc(func(w http.ResponseWriter, _ *http.Request) {
		_, _ = io.WriteString(w, "the real example.com")
	}))
	DeferCleanup(e.Other.Close)
	e.Plain = httptest.NewServer(http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
		_, _ = fmt.Fprintf(w, "plain %s %s", r.Host, r.Header.Get("Proxy-Authorization"))
	}))
	DeferCleanup(e.Plain.Close)

	e.Silent, e.Quit = silentServer()
	e.Echo = echoServer()

	fwdOpts := upstream.Options{
		Dial: upstreamtest.Dialer(map[string]string{
			"api2.cursor.sh:443": e.Fake.Addr, "api3.cursor.sh:443": e.Fake.Addr,
			"example.com:443": e.Other.Listener.Addr().String(), "plain.example:80": e.Plain.Listener.Addr().String(),
			"silent.example:443": e.Silent.Addr().String(), "echo.example:443": e.Echo.Addr().String(),
		}),
		RootCAs: e.Fake.Pool,
		Getenv:  func(string) string { return "" },
	}
	if o.Forwarder != nil {
		o.Forwarder(&fwdOpts)
	}
	e.Forwarder, err = upstream.New(fwdOpts, zap.NewNop())
	Expect(err).NotTo(HaveOccurred())
	DeferCleanup(e.Forwarder.CloseIdleConnections)

	var dialedMu sync.Mutex
	var dialed []string
	e.Dialed = func() []string {
		dialedMu.Lock()
		defer dialedMu.Unlock()
		return append([]string(nil), dialed...)
	}
	keygate, isKeygate := cursorproxy.RouteTable(o.Routes)
	opts := cursorproxy.Options{
		Addr:          "127.0.0.1:0",
		Certificate:   ca.NewLeaves(root, ca.LeafOptions{}).Leaf,
		Keygate:       keygate,
		IsKeygatePath: isKeygate,
		Upstream:      e.Forwarder,
		Tunnel: func(ctx context.Context, addr string) (net.Conn, error) {
			dialedMu.Lock()
			dialed = append(dialed, addr)
			dialedMu.Unlock()
			return e.Forwarder.DialTunnel(ctx, addr)
		},
		Auth:               o.Auth,
		PassthroughSetting: "KEYGATE_PROXY_PASSTHROUGH",
	}
	if o.ListenTLS {
		opts.ListenTLS = &tls.Config{GetCertificate: ca.NewLeaves(root, ca.LeafOptions{}).ForHost("127.0.0.1")}
		e.ProxyScheme = "https"
	}
	if o.Tune != nil {
		o.Tune(&opts)
	}
	log := o.Log
	if log == nil {
		log = zap.NewNop()
	}
	proxy, err := cursorproxy.New(opts, log)
	Expect(err).NotTo(HaveOccurred())
	e.Proxy = proxy
	ctx, cancel := context.WithCancel(context.Background())
	addr := make(chan net.Addr, 1)
	done := make(chan error, 1)
	go func() { done <- proxy.Run(ctx, func(a net.Addr) { addr <- a }) }()
	var bound net.Addr
	Eventually(addr, 5*time.Second).Should(Receive(&bound))
	e.ProxyAddr = bound.String()
	var stopped error
	stop := sync.OnceValue(func() error {
		cancel()
		Eventually(done, 10*time.Second).Should(Receive(&stopped))
		return stopped
	})
	e.Stop = stop
	DeferCleanup(func() { Expect(stop()).To(Succeed()) })

	e.Pool = root.Pool()
	e.Pool.AddCert(e.Other.Certificate())
	return e
}

// silentServer accepts connections and never writes; its channel receives
// once per connection the other side closed.
func silentServer() (net.Listener, chan struct{}) {
	ln, err := net.Listen("tcp", "127.0.0.1:0")
	Expect(err).NotTo(HaveOccurred())
	DeferCleanup(ln.Close)
	quit := make(chan struct{}, 16)
	go func() {
		for {
			c, err := ln.Accept()
			if err != nil {
				return
			}
			go func() {
				defer c.Close()
				_, _ = io.Copy(io.Discard, c)
				quit <- struct{}{}
			}()
		}
	}()
	return ln, quit
}

// echoServer writes back whatever it reads.
func echoServer() net.Listener {
	ln, err := net.Listen("tcp", "127.0.0.1:0")
	Expect(err).NotTo(HaveOccurred())
	DeferCleanup(ln.Close)
	go func() {
		for {
			c, err := ln.Accept()
			if err != nil {
				return
			}
			go func() {
				defer c.Close()
				_, _ = io.Copy(c, c)
			}()
		}
	}()
	return ln
}

// Client is an HTTPS client configured with the proxy (credentials from
// user, if any) and trusting Pool; it reaches nothing but loopback.
func (e *env) Client(user *url.Userinfo) *http.Client {
	proxyURL := &url.URL{Scheme: e.ProxyScheme, Host: e.ProxyAddr, User: user}
	tr := &http.Transport{
		Proxy:           http.ProxyURL(proxyURL),
		DialContext:     upstreamtest.Dialer(nil),
		TLSClientConfig: &tls.Config{RootCAs: e.Pool},
	}
	DeferCleanup(tr.CloseIdleConnections)
	return &http.Client{Transport: tr}
}

// connect sends a raw CONNECT with the given Proxy-Authorization (none when
// empty) and returns the proxy's answer.
func (e *env) connect(target, auth string) *http.Response {
	_, resp := e.dialConnect(target, auth)
	return resp
}

// dialConnect is connect that also returns the connection, which is the
// tunnel after a 200.
func (e *env) dialConnect(target, auth string) (net.Conn, *http.Response) {
	conn, err := net.Dial("tcp", e.ProxyAddr)
	Expect(err).NotTo(HaveOccurred())
	DeferCleanup(conn.Close)
	req := fmt.Sprintf("CONNECT %s HTTP/1.1\r\nHost: %s\r\n", target, target)
	if auth != "" {
		req += "Proxy-Authorization: " + auth + "\r\n"
	}
	_, err = io.WriteString(conn, req+"\r\n")
	Expect(err).NotTo(HaveOccurred())
	resp, err := http.ReadResponse(bufio.NewReader(conn), &http.Request{Method: http.MethodConnect})
	Expect(err).NotTo(HaveOccurred())
	return conn, resp
}

// whoami is a Keygate route that reports what the proxy told it.
var whoami = http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
	id, ok := identity.FromContext(r.Context())
	if !ok {
		id.UserID = "<none>"
	}
	w.Header().Set("X-User", id.UserID)
	w.Header().Set("X-Original-URL", r.Header.Get(upstream.HeaderUpstreamURL))
	_, _ = io.WriteString(w, "keygate")
})

// tokens is a fake authenticator: a fixed token table, or an outage.
type tokens struct {
	users map[string]string
	down  bool
}

func (t tokens) Authenticate(_ context.Context, token string) (identity.Identity, error) {
	if t.down {
		return identity.Identity{}, fmt.Errorf("token store: %w", net.ErrClosed)
	}
	if u, ok := t.users[token]; ok {
		return identity.Identity{UserID: u}, nil
	}
	return identity.Identity{}, fmt.Errorf("token %q: %w", token, ports.ErrNotAuthorized)
}

var _ ports.ProxyAuthenticator = tokens{}

// revocable is a token table that can revoke tokens and fail, and counts
// how often each token was asked about.
type revocable struct {
	mu    sync.Mutex
	users map[string]string
	down  bool
	calls map[string]int
}

func newRevocable(users map[string]string) *revocable {
	return &revocable{users: users, calls: map[string]int{}}
}

func (t *revocable) Authenticate(_ context.Context, token string) (identity.Identity, error) {
	t.mu.Lock()
	defer t.mu.Unlock()
	t.calls[token]++
	if t.down {
		return identity.Identity{}, fmt.Errorf("token store: %w", net.ErrClosed)
	}
	if u, ok := t.users[token]; ok {
		return identity.Identity{UserID: u}, nil
	}
	return identity.Identity{}, fmt.Errorf("token: %w", ports.ErrNotAuthorized)
}

// Revoke refuses token from now on.
func (t *revocable) Revoke(token string) {
	t.mu.Lock()
	delete(t.users, token)
	t.mu.Unlock()
}

// SetDown makes every answer an outage (true) or not.
func (t *revocable) SetDown(down bool) {
	t.mu.Lock()
	t.down = down
	t.mu.Unlock()
}

// Calls is how often token was asked about.
func (t *revocable) Calls(token string) int {
	t.mu.Lock()
	defer t.mu.Unlock()
	return t.calls[token]
}

var _ ports.ProxyAuthenticator = (*revocable)(nil)
