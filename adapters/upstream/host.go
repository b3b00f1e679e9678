package upstream

import (
	"errors"
	"fmt"
	"net"
	"net/http"
	"net/url"
	"strings"
)

// HeaderUpstreamURL carries the URL the client originally asked for (for
// example https://api2.cursor.sh/aiserver.v1.AiService/CheckQueuePosition)
// from the proxy to the handlers behind it.
const HeaderUpstreamURL = "X-Server-Upstream-URL"

// DefaultURL is where requests without HeaderUpstreamURL go: the main
// Cursor API host, which serves BidiAppend and RunSSE over HTTP/1.1.
const DefaultURL = "https://api2.cursor.sh"

// ErrForeignUpstream means the upstream URL is not HTTPS on a Cursor host.
var ErrForeignUpstream = errors.New("upstream URL must target a Cursor HTTPS host")

// IsCursorHost reports whether host (a name, with or without port) is
// cursor.sh or under it: the hosts the proxy intercepts
// (docs/cursor-protocol.md, "Hosts Keygate intercepts").
func IsCursorHost(host string) bool {
	if h, _, err := net.SplitHostPort(host); err == nil {
		host = h
	}
	host = strings.TrimSuffix(strings.ToLower(host), ".")
	return host == "cursor.sh" || strings.HasSuffix(host, ".cursor.sh")
}

// OriginalURL is the URL a request intercepted for host asked for: HTTPS,
// host (port 443 left implicit), the request's path and query.
func OriginalURL(host string, r *http.Request) string {
	if h, port, err := net.SplitHostPort(host); err == nil && port == "443" {
		host = h
	}
	return "https://" + host + r.URL.RequestURI()
}

// Target resolves where r goes upstream: the URL in HeaderUpstreamURL, or
// base (DefaultURL when empty) with r's path and query. It returns
// ErrForeignUpstream for a URL that is not HTTPS on a Cursor host.
func Target(r *http.Request, base string) (*url.URL, error) {
	raw := r.Header.Get(HeaderUpstreamURL)
	if raw == "" {
		if base == "" {
			base = DefaultURL
		}
		raw = strings.TrimSuffix(base, "/") + r.URL.RequestURI()
	}
	u, err := url.Parse(raw)
	if err != nil {
		return nil, fmt.Errorf("parse upstream URL: %w", err)
	}
	if u.Scheme != "https" || !IsCursorHost(u.Host) || u.User != nil {
		return nil, fmt.Errorf("%q: %w", raw, ErrForeignUpstream)
	}
	return u, nil
}
