package cursorproxy

import (
	"fmt"
	"net"
	"net/http"
	"strconv"
	"strings"

	"go.uber.org/zap"

	"keygate/domain/destination"
	"keygate/domain/identity"
)

// passes reports whether a request may reach host:port, which is not an
// intercepted host: always on a laptop (no Auth), where the Tunnel dialer
// alone keeps Keygate's own ports closed; in company mode only when the
// pass-through list names it. defaultPort is the scheme's (443 for
// CONNECT, 80 for plain HTTP).
func (p *Proxy) passes(host string, port, defaultPort int) bool {
	return p.opts.Auth == nil || p.opts.Passthrough.Allows(host, port, defaultPort)
}

// refuse answers 403 for a destination outside the company proxy's
// policy, naming it and how an operator admits it, and closes the
// connection.
func (p *Proxy) refuse(w http.ResponseWriter, r *http.Request, id identity.Identity, host string, port int) {
	target := net.JoinHostPort(host, strconv.Itoa(port))
	p.log.Info("proxy destination refused", zap.String("target", target), zap.String("user_id", id.UserID),
		zap.String("method", r.Method))
	where := "the proxy's pass-through list"
	if p.opts.PassthroughSetting != "" {
		where += " (" + p.opts.PassthroughSetting + ")"
	}
	closeAfter(w)
	http.Error(w, fmt.Sprintf("Keygate's proxy does not reach %s: in company mode it reaches only Cursor's hosts "+
		"and the hosts an administrator allowed. An administrator allows this one by adding %s to %s.",
		target, passthroughEntry(host, port, r.Method), where), http.StatusForbidden)
}

// refuseIntercepted answers 403 for an intercepted (Cursor) host asked for
// in plain HTTP or on a port other than 443, and closes the connection. No
// setting admits it: Cursor reaches its hosts over TLS on 443.
func (p *Proxy) refuseIntercepted(w http.ResponseWriter, r *http.Request, id identity.Identity, host string, port int) {
	target := net.JoinHostPort(host, strconv.Itoa(port))
	p.log.Info("proxy refused a Cursor host outside HTTPS on 443", zap.String("target", target), zap.String("user_id", id.UserID),
		zap.String("method", r.Method))
	closeAfter(w)
	http.Error(w, fmt.Sprintf("Keygate's proxy does not reach %s: it reaches Cursor's hosts by CONNECT on port 443 (HTTPS) only, "+
		"never in plain HTTP or on another port.", target), http.StatusForbidden)
}

// passthroughEntry is the list entry that would admit host:port.
func passthroughEntry(host string, port int, method string) string {
	def := 80
	if method == http.MethodConnect {
		def = 443
	}
	if port == def {
		return host
	}
	return net.JoinHostPort(host, strconv.Itoa(port))
}

// splitAuthority splits host[:port] into a normalised host and a port
// (defaultPort when there is none, -1 when it is not a port number, which
// no entry matches).
func splitAuthority(authority string, defaultPort int) (string, int) {
	host, portText, err := net.SplitHostPort(authority)
	if err != nil {
		host = strings.TrimSuffix(strings.TrimPrefix(authority, "["), "]")
		return destination.Normalize(host), defaultPort
	}
	port, err := strconv.Atoi(portText)
	if err != nil || port < 1 || port > 65535 {
		port = -1
	}
	return destination.Normalize(host), port
}
