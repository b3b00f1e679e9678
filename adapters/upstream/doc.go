// Package upstream is Keygate's way out to the real Cursor service: a
// streaming pass-through for every route Keygate does not implement, and
// for whole runs whose model is not a Keygate model.
//
// Place in the hexagon: an outbound adapter. The Cursor proxy hands it the
// requests it does not route to Keygate; the Cursor adapter calls it for
// runs and foreign BidiAppends that belong to Cursor (ServeHTTP, ServeBody,
// or RoundTrip under a Connect client) and for Cursor's half of merged
// model lists (Call); the composition root builds it from configuration.
//
// The original URL travels in the X-Server-Upstream-URL header, which the
// proxy sets on every intercepted request; only HTTPS URLs on a Cursor host
// are accepted, so a client cannot turn Keygate into an open relay. Bodies
// stream both ways and every write of the upstream response is flushed at
// once, so a server stream reaches the client message by message.
//
// Outbound traffic honours an explicit proxy setting or the standard
// HTTPS_PROXY / HTTP_PROXY / NO_PROXY environment (on proxy-only networks
// every Cursor request must go through it). Where it may connect is the
// outbound policy's to decide (adapters/egress), given as Options.Dial and
// Options.CheckProxied by the composition root. The
// reverse proxy is the standard library's httputil.ReverseProxy (it already
// drops hop-by-hop headers and handles trailers); the proxy environment is
// parsed by golang.org/x/net/http/httpproxy. What is hand-written is the
// CONNECT through an outbound proxy for tunnels (tunnel.go): neither
// library exposes a dialer for that.
package upstream
