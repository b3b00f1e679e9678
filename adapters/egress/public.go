package egress

import (
	"context"
	"net"
	"net/http"
	"net/url"
	"time"
)

// Public is the policy's view for destinations a model chose rather than an
// operator (the agent's web fetch). It refuses what the policy always
// refuses (Keygate's own listeners and database, the unspecified
// addresses) and every address that is not public: loopback, link-local,
// private, shared and reserved ranges, on a laptop too, and whatever the
// allow-list says, since the allow-list opens destinations an
// administrator configured (a self-hosted model), not ones a prompt can
// name. The operator's outbound proxy may still be dialled; through it,
// targets are checked as CheckProxied does, by this view's rules.
type Public struct{ p *Policy }

// Public returns the public-only view of p.
func (p *Policy) Public() *Public { return &Public{p: p} }

// DialContext is Policy.DialContext by the public-only rules; a refusal
// is a *RefusedError with Public set.
func (v *Public) DialContext(ctx context.Context, network, addr string) (net.Conn, error) {
	return v.p.dial(ctx, network, addr, publicView)
}

// CheckProxied is Policy.CheckProxied by the public-only rules, and a name
// is also resolved by Keygate's resolver and refused when any address it
// answers is not public: a prompt may name a public DNS name that points at
// 127.0.0.1. A name Keygate cannot resolve is the proxy's.
func (v *Public) CheckProxied(ctx context.Context, hostport string) error {
	return v.p.checkProxied(ctx, hostport, publicView)
}

// Transport is an HTTP transport whose every connection is dialled by the
// public-only view, through the environment's outbound proxy like
// Policy.Transport, with bounded dial and TLS handshake times. It keeps few
// idle connections: fetched hosts are rarely asked twice.
func (v *Public) Transport() *http.Transport {
	return &http.Transport{
		Proxy:                 v.proxyFor,
		DialContext:           v.DialContext,
		ForceAttemptHTTP2:     true,
		TLSHandshakeTimeout:   10 * time.Second,
		ResponseHeaderTimeout: 30 * time.Second,
		MaxIdleConns:          16,
		MaxIdleConnsPerHost:   2,
		IdleConnTimeout:       30 * time.Second,
	}
}

func (v *Public) proxyFor(r *http.Request) (*url.URL, error) {
	proxy, err := v.p.envProxy(r.URL)
	if err != nil || proxy == nil {
		return proxy, err
	}
	if err := v.CheckProxied(r.Context(), canonicalAddr(r.URL)); err != nil {
		return nil, err
	}
	return proxy, nil
}
