package egress

import (
	"errors"
	"fmt"
	"net"
	"net/http"
	"net/url"
	"strings"
	"time"

	"keygate/ports"
)

// maxRedirects bounds the requests one call makes by following same-origin
// redirects (the standard library's count: the first request included).
const maxRedirects = 5

// ErrCrossOriginRedirect matches every *RedirectError with errors.Is.
var ErrCrossOriginRedirect = errors.New("redirect to another origin refused")

// RedirectError is a redirect the HTTP client refused to follow because it
// leads to another origin than the request's. It names origins only
// (scheme://host:port), never a path or query.
type RedirectError struct {
	From, To string
}

func (e *RedirectError) Error() string {
	return fmt.Sprintf("redirect from %s to %s refused: Keygate sends a request's credentials and headers only to the origin it was configured for; configure the URL the redirect leads to instead", e.From, e.To)
}

// Is makes errors.Is(err, ErrCrossOriginRedirect) and errors.Is(err,
// ports.ErrDestinationRefused) true.
func (e *RedirectError) Is(target error) bool {
	return target == ErrCrossOriginRedirect || target == ports.ErrDestinationRefused
}

// Transport is an HTTP transport whose every connection is dialled by the
// policy, for provider and discovery calls: HTTP/2 when the server offers
// it, bounded dial and TLS handshake times, the environment's outbound
// proxy (HTTPS_PROXY, HTTP_PROXY, NO_PROXY) with the target checked by
// CheckProxied before the proxy is asked for it. There is no overall or
// header timeout: model streams are long, and the callers' contexts and
// watchdogs bound them.
func (p *Policy) Transport() *http.Transport {
	return &http.Transport{
		Proxy:               p.proxyFor,
		DialContext:         p.DialContext,
		ForceAttemptHTTP2:   true,
		TLSHandshakeTimeout: 10 * time.Second,
		// Turns that start together each open a stream to the same
		// provider; over HTTP/1.1 that is a connection each, and a pool
		// smaller than the burst closes the surplus after it, so that the
		// next burst dials (and shakes hands) again. Idle connections
		// still go after IdleConnTimeout.
		MaxIdleConns:          1024,
		MaxIdleConnsPerHost:   256,
		IdleConnTimeout:       90 * time.Second,
		ExpectContinueTimeout: time.Second,
	}
}

// HTTPClient is a client over Transport that follows redirects only within
// the first request's origin (SameOriginRedirects).
func (p *Policy) HTTPClient() *http.Client {
	return &http.Client{Transport: p.Transport(), CheckRedirect: SameOriginRedirects}
}

func (p *Policy) proxyFor(r *http.Request) (*url.URL, error) {
	proxy, err := p.envProxy(r.URL)
	if err != nil || proxy == nil {
		return proxy, err
	}
	if err := p.CheckProxied(r.Context(), canonicalAddr(r.URL)); err != nil {
		return nil, err
	}
	return proxy, nil
}

// SameOriginRedirects is an http.Client CheckRedirect: it follows
// redirects that stay on the origin (scheme, host, port) of the first
// request, up to maxRedirects requests in all, and refuses any other with a
// *RedirectError, before the redirect is sent. The standard client would follow it and carry
// every header but Authorization and cookies along: x-api-key, api-key and
// custom headers would reach the new host.
func SameOriginRedirects(req *http.Request, via []*http.Request) error {
	from, to := origin(via[0].URL), origin(req.URL)
	if from != to {
		return &RedirectError{From: from, To: to}
	}
	if len(via) >= maxRedirects {
		return fmt.Errorf("stopped after %d redirects within %s", maxRedirects, from)
	}
	return nil
}

// origin is scheme://host:port with the scheme's default port.
func origin(u *url.URL) string {
	scheme := strings.ToLower(u.Scheme)
	port := u.Port()
	if port == "" {
		port = map[string]string{"http": "80", "https": "443"}[scheme]
	}
	return scheme + "://" + net.JoinHostPort(strings.ToLower(u.Hostname()), port)
}
