package upstreamtest

import (
	"context"
	"io"
	"net"
	"net/http"
	"net/http/httptest"
	"sync"
)

// OutboundProxy is a minimal CONNECT-only proxy on loopback, standing in
// for a company's egress proxy. It records every CONNECT target and
// Proxy-Authorization value, and refuses targets in Refuse with 403.
type OutboundProxy struct {
	// URL is http://127.0.0.1:port.
	URL    string
	Refuse map[string]bool

	dial func(ctx context.Context, network, addr string) (net.Conn, error)
	srv  *httptest.Server

	mu       sync.Mutex
	connects []string
	auths    []string
}

// NewOutboundProxy starts a proxy that reaches targets through dial.
func NewOutboundProxy(dial func(ctx context.Context, network, addr string) (net.Conn, error)) *OutboundProxy {
	p := &OutboundProxy{dial: dial, Refuse: map[string]bool{}}
	p.srv = httptest.NewServer(http.HandlerFunc(p.serve))
	p.URL = p.srv.URL
	return p
}

// Connects returns the CONNECT targets seen so far, in order.
func (p *OutboundProxy) Connects() []string {
	p.mu.Lock()
	defer p.mu.Unlock()
	return append([]string(nil), p.connects...)
}

// Auths returns the Proxy-Authorization values seen so far, in order.
func (p *OutboundProxy) Auths() []string {
	p.mu.Lock()
	defer p.mu.Unlock()
	return append([]string(nil), p.auths...)
}

// Close stops the proxy and cuts its tunnels.
func (p *OutboundProxy) Close() {
	p.srv.CloseClientConnections()
	p.srv.Close()
}

func (p *OutboundProxy) serve(w http.ResponseWriter, r *http.Request) {
	if r.Method != http.MethodConnect {
		http.Error(w, "CONNECT only", http.StatusMethodNotAllowed)
		return
	}
	p.mu.Lock()
	p.connects = append(p.connects, r.Host)
	p.auths = append(p.auths, r.Header.Get("Proxy-Authorization"))
	refuse := p.Refuse[r.Host]
	p.mu.Unlock()
	if refuse {
		http.Error(w, "forbidden by policy", http.StatusForbidden)
		return
	}
	up, err := p.dial(r.Context(), "tcp", r.Host)
	if err != nil {
		http.Error(w, err.Error(), http.StatusBadGateway)
		return
	}
	conn, brw, err := http.NewResponseController(w).Hijack()
	if err != nil {
		_ = up.Close()
		return
	}
	_, _ = brw.WriteString("HTTP/1.1 200 OK\r\n\r\n")
	_ = brw.Flush()
	go func() {
		_, _ = io.Copy(up, brw)
		_ = up.Close()
	}()
	_, _ = io.Copy(conn, up)
	_ = conn.Close()
}
