package upstream

import (
	"bytes"
	"context"
	"crypto/tls"
	"crypto/x509"
	"errors"
	"fmt"
	"io"
	"net"
	"net/http"
	"net/http/httputil"
	"net/url"
	"time"

	"go.uber.org/zap"

	"keygate/domain/cursorcloud"
)

// Options configure a Forwarder.
type Options struct {
	// BaseURL is the upstream for requests without HeaderUpstreamURL
	// (DefaultURL when empty). It must be HTTPS on a Cursor host.
	BaseURL string
	// Proxy is the outbound proxy for all upstream traffic
	// ("http://user:pass@proxy.corp:3128"). Empty: the standard proxy
	// environment decides; "direct" disables proxying.
	Proxy string
	// Getenv reads the proxy environment (os.Getenv when nil).
	Getenv func(string) string
	// Dial opens the TCP connections to Cursor (a net.Dialer when nil):
	// the composition root passes the outbound policy's view for names a
	// client chose ((*egress.Named).DialContext); specs point Cursor hosts
	// at loopback fakes with it.
	Dial func(ctx context.Context, network, addr string) (net.Conn, error)
	// CheckProxied, when set, decides a Cursor target (host:port) before
	// the outbound proxy is asked for it, since the dial then reaches only
	// the proxy ((*egress.Named).CheckProxied); a non-nil error refuses it.
	CheckProxied func(ctx context.Context, addr string) error
	// TunnelDial and TunnelCheckProxied are Dial and CheckProxied for
	// DialTunnel (the proxy's tunnels and plain forwards to the hosts an
	// administrator passes through): the full outbound policy in
	// production. Nil: Dial and CheckProxied.
	TunnelDial         func(ctx context.Context, network, addr string) (net.Conn, error)
	TunnelCheckProxied func(ctx context.Context, addr string) error
	// RootCAs verify upstream servers (the system pool when nil).
	RootCAs *x509.CertPool
	// Policy decides what reaches Cursor (cursorcloud.Allow when empty):
	// every request, whichever of ServeHTTP, ServeBody, RoundTrip or Call
	// sends it, is classified by path and refused, or in deny mode
	// answered with an empty message, before anything is dialled. The
	// proxy's tunnels (DialTunnel) are not Cursor's and not decided.
	Policy cursorcloud.Policy
	// Ledger counts each decided request and its bytes; nil counts nothing.
	Ledger Ledger
}

// Forwarder sends requests to the real Cursor service. It is an
// http.Handler (stream an inbound request upstream and the answer back) and
// an http.RoundTripper (send a request built in process, for example by a
// Connect client). It is safe for concurrent use.
type Forwarder struct {
	base    string
	proxy   func(*url.URL) (*url.URL, error)
	checked func(ctx context.Context, addr string) error
	// tunnelChecked and tunnelDial serve DialTunnel.
	tunnelChecked func(ctx context.Context, addr string) error
	tunnelDial    func(ctx context.Context, network, addr string) (net.Conn, error)
	rootCAs       *x509.CertPool
	transport     *http.Transport
	// gated is transport behind the cloud policy: every request to Cursor
	// goes through it.
	gated   http.RoundTripper
	reverse *httputil.ReverseProxy
	log     *zap.Logger
}

var (
	_ http.Handler      = (*Forwarder)(nil)
	_ http.RoundTripper = (*Forwarder)(nil)
)

type targetKey struct{}

// New builds a Forwarder. It fails on an invalid BaseURL or Proxy.
func New(opts Options, log *zap.Logger) (*Forwarder, error) {
	if opts.BaseURL == "" {
		opts.BaseURL = DefaultURL
	}
	probe, _ := http.NewRequest(http.MethodGet, "/", nil)
	if _, err := Target(probe, opts.BaseURL); err != nil {
		return nil, fmt.Errorf("upstream base URL: %w", err)
	}
	proxy, err := proxyFunc(opts.Proxy, opts.Getenv)
	if err != nil {
		return nil, err
	}
	if opts.Dial == nil {
		opts.Dial = (&net.Dialer{Timeout: 30 * time.Second, KeepAlive: 30 * time.Second}).DialContext
	}
	if opts.CheckProxied == nil {
		opts.CheckProxied = func(context.Context, string) error { return nil }
	}
	if opts.TunnelDial == nil {
		opts.TunnelDial = opts.Dial
	}
	if opts.TunnelCheckProxied == nil {
		opts.TunnelCheckProxied = opts.CheckProxied
	}
	f := &Forwarder{base: opts.BaseURL, proxy: proxy, checked: opts.CheckProxied, tunnelChecked: opts.TunnelCheckProxied,
		tunnelDial: opts.TunnelDial, rootCAs: opts.RootCAs, log: log}
	f.transport = &http.Transport{
		Proxy:                 f.proxyFor,
		DialContext:           opts.Dial,
		TLSClientConfig:       &tls.Config{RootCAs: opts.RootCAs, MinVersion: tls.VersionTLS12},
		ForceAttemptHTTP2:     true,
		MaxIdleConnsPerHost:   64,
		IdleConnTimeout:       90 * time.Second,
		TLSHandshakeTimeout:   15 * time.Second,
		ExpectContinueTimeout: time.Second,
	}
	if opts.Policy == "" {
		opts.Policy = cursorcloud.Allow
	}
	f.gated = &gate{next: f.transport, policy: opts.Policy, ledger: opts.Ledger}
	f.reverse = &httputil.ReverseProxy{
		Rewrite:       f.rewrite,
		Transport:     f.gated,
		FlushInterval: -1,
		ErrorHandler:  f.fail,
	}
	return f, nil
}

// proxyFor is the transport's proxy choice, with the target checked when it
// goes through the outbound proxy.
func (f *Forwarder) proxyFor(r *http.Request) (*url.URL, error) {
	proxy, err := f.proxy(r.URL)
	if err != nil || proxy == nil {
		return proxy, err
	}
	port := r.URL.Port()
	if port == "" {
		port = "443"
		if r.URL.Scheme == "http" {
			port = "80"
		}
	}
	if err := f.checked(r.Context(), net.JoinHostPort(r.URL.Hostname(), port)); err != nil {
		return nil, err
	}
	return proxy, nil
}

// ServeHTTP streams r to its upstream target (see Target) and the answer
// back: method, path, query, headers and body as they came, minus the
// hop-by-hop headers, Host and HeaderUpstreamURL. A target that is not a
// Cursor HTTPS URL gets 400; an unreachable upstream gets 502.
// A handler that already read the body uses ServeBody instead.
func (f *Forwarder) ServeHTTP(w http.ResponseWriter, r *http.Request) {
	target, err := Target(r, f.base)
	if err != nil {
		http.Error(w, err.Error(), http.StatusBadRequest)
		return
	}
	f.reverse.ServeHTTP(w, r.WithContext(context.WithValue(r.Context(), targetKey{}, target)))
}

// ServeBody is ServeHTTP for a request whose body the caller has already
// read, for example a RunSSE that had to be decoded to learn that its run
// belongs to Cursor: body is sent in its place.
func (f *Forwarder) ServeBody(w http.ResponseWriter, r *http.Request, body []byte) {
	r = r.Clone(r.Context())
	r.Body = io.NopCloser(bytes.NewReader(body))
	r.ContentLength = int64(len(body))
	r.Header.Del("Content-Length")
	r.TransferEncoding = nil
	f.ServeHTTP(w, r)
}

func (f *Forwarder) rewrite(pr *httputil.ProxyRequest) {
	target := pr.In.Context().Value(targetKey{}).(*url.URL)
	pr.Out.URL = target
	pr.Out.Host = ""
	pr.Out.Header.Del(HeaderUpstreamURL)
}

func (f *Forwarder) fail(w http.ResponseWriter, r *http.Request, err error) {
	if errors.Is(err, context.Canceled) {
		return // the client went away; nobody reads the answer
	}
	f.log.Warn("upstream unreachable", zap.String("path", r.URL.Path), zap.Error(err))
	http.Error(w, "upstream unreachable", http.StatusBadGateway)
}

// RoundTrip sends req to the URL in its HeaderUpstreamURL, or else to
// req.URL: a Connect client built with base URL DefaultURL can copy the
// inbound request's HeaderUpstreamURL onto its call to reach the host the
// client originally asked for. Either URL must be HTTPS on a Cursor host
// (ErrForeignUpstream). req is not modified.
func (f *Forwarder) RoundTrip(req *http.Request) (*http.Response, error) {
	base := req.URL.Scheme + "://" + req.URL.Host
	target, err := Target(req, base)
	if err != nil {
		if req.Body != nil {
			_ = req.Body.Close()
		}
		return nil, err
	}
	out := req.Clone(req.Context())
	out.URL, out.Host = target, ""
	out.Header.Del(HeaderUpstreamURL)
	return f.gated.RoundTrip(out)
}

// Client returns an http.Client that sends everything upstream, for
// Connect clients.
func (f *Forwarder) Client() *http.Client { return &http.Client{Transport: f} }

// CloseIdleConnections closes idle upstream connections (at shutdown).
func (f *Forwarder) CloseIdleConnections() { f.transport.CloseIdleConnections() }
