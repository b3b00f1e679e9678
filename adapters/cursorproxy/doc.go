// Package cursorproxy is the forward proxy Cursor is pointed at through its
// http.proxy setting. Cursor has no setting for a custom agent backend, so
// Keygate intercepts the TLS of *.cursor.sh instead: every CONNECT to a
// Cursor host is answered by Keygate itself with a leaf certificate minted
// from the installation's or the company's CA, and each request inside
// goes to one of two places:
//
//   - Keygate's own handlers, when Keygate implements the route, which
//     include the fixed local answers of the probes that must never leave
//     the machine (adapters/cursor/unary.Stubs);
//   - the real Cursor service, streamed unchanged, through the upstream
//     forwarder and thus through the outbound proxy.
//
// On a laptop (no authenticator) CONNECTs to any other host are tunnelled
// untouched, and the Tunnel dialer alone decides what is reachable. With
// an authenticator (company mode) every CONNECT and plain-HTTP request must
// carry a personal gateway token in Proxy-Authorization; the identity it
// names rides on the context of every request inside the tunnel
// (domain/identity), so the handlers behind the proxy scope conversations,
// runs and call records by user. A company proxy reaches only the Cursor
// hosts it intercepts and the hosts of a pass-through list
// (domain/destination), by name and port; everything else is answered 403
// before anything is dialled. Intercepted hosts are reached by CONNECT on
// port 443 only, in every mode. The tokens of open connections are checked
// again every few seconds, so that a revoked token loses its intercepted
// connections, tunnels, keep-alive and upgraded connections on every
// replica. Each user's open connections and distinct tokens are bounded,
// and so are everyone's distinct tokens; a connection over a bound is
// refused (429, or 503 for the proxy's own) before it is answered.
//
// Every connection is bounded in time: request headers, request bodies
// (idle and whole), keep-alive idleness, tunnel idleness and each write;
// responses are not, because RunSSE streams for as long as a turn runs.
// Refusals (400, 403, 407, 429, 503) close the connection.
//
// Place in the hexagon: an inbound adapter in front of adapters/cursor.
// Imports: the standard library, ports (ProxyAuthenticator),
// domain/identity, domain/destination, adapters/upstream (which hosts are
// intercepted, the original-URL header) and go.uber.org/zap; the composition
// root gives it the leaf certificates (Options.Certificate, adapters/ca's
// Leaves), the handlers it routes to and the dialer it tunnels with.
//
// The standard library serves HTTP inside the intercepted connections: the
// proxy finishes the TLS handshake itself and hands the connections to an
// internal http.Server through a channel listener, so keep-alive, chunked
// bodies and streaming responses behave exactly as on Keygate's main
// listener. Tunnels and the CONNECT dance are hand-written because net/http
// has no forward-proxy server; the Go MITM libraries (goproxy, martian)
// would add a second routing model on top of ours for a few dozen lines.
//
// The setup subpackage writes the Cursor settings that point at the proxy.
package cursorproxy
