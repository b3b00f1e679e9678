package egress

import (
	"context"
	"errors"
	"fmt"
	"net"
	"net/netip"
	"net/url"
	"os"
	"strconv"
	"strings"
	"sync"
	"sync/atomic"
	"time"

	"code.dny.dev/ssrf"
	"golang.org/x/net/http/httpproxy"

	"keygate/domain/destination"
	"keygate/ports"
)

// AllowSetting names the setting that opens a refused destination, for
// refusal messages (app/config reads it).
const AllowSetting = "KEYGATE_EGRESS_ALLOW"

// ErrRefused matches every *RefusedError with errors.Is.
var ErrRefused = errors.New("outbound connection refused by Keygate's egress policy")

// RefusedError is a connection the policy refused before it was opened. Its
// message names the destination and how to allow it; it never holds a URL
// (whose path or query may carry a key), only a host and port.
type RefusedError struct {
	// Dest is the host:port as asked for (a name or an IP literal).
	Dest string
	// Addr is the address Dest resolved to; invalid when refused by name.
	Addr netip.AddrPort
	// Reason says what the destination is ("a private address").
	Reason string
	// Own is set for Keygate's own listeners and database, which no
	// allow-list opens.
	Own bool
	// Public is set for a refusal of the public-only view (Policy.Public),
	// which no allow-list opens either.
	Public bool
	// Invalid is set for a host that is neither an IP address nor a host
	// name (1.2.3.4.5), which nothing opens.
	Invalid bool
}

func (e *RefusedError) Error() string {
	at := e.Dest
	if e.Addr.IsValid() && e.Addr.String() != e.Dest {
		at += " (" + e.Addr.Addr().String() + ")"
	}
	if e.Own {
		return "outbound connection to " + at + " refused: " + e.Reason +
			"; Keygate never connects there on anyone's behalf, whatever " + AllowSetting + " says"
	}
	if e.Invalid {
		return "outbound connection to " + at + " refused: " + e.Reason
	}
	if e.Public {
		return "outbound connection to " + at + " refused: " + e.Reason +
			"; a destination a model chose (a web fetch) must be a public address"
	}
	return "outbound connection to " + at + " refused: " + e.Reason +
		"; an administrator can allow it with " + AllowSetting + "=" + e.Dest
}

// Is makes errors.Is(err, ErrRefused) and errors.Is(err,
// ports.ErrDestinationRefused) true.
func (e *RefusedError) Is(target error) bool {
	return target == ErrRefused || target == ports.ErrDestinationRefused
}

// Options configure a Policy.
type Options struct {
	// Laptop is the local sign-in mode: loopback, private and shared
	// addresses are allowed too (a developer's own model server).
	Laptop bool
	// Allow is the operator's allow-list (destination.Parse forms).
	Allow []string
	// Own lists host:port addresses Keygate itself serves or depends on
	// (its listeners, its database), always refused. An empty, 0.0.0.0 or
	// :: host means every local address; a name is refused by name and by
	// the addresses it resolves to when New runs. Port 0 entries are
	// skipped: report bound listeners with Listening.
	Own []string
	// OutboundProxy is the operator's outbound proxy setting as
	// adapters/upstream reads it: a URL, "direct" or empty. The proxy it
	// names, and those of HTTPS_PROXY / HTTP_PROXY, may be dialled.
	OutboundProxy string
	// Getenv reads HTTPS_PROXY, HTTP_PROXY and NO_PROXY (os.Getenv when
	// nil). The HTTP client proxies by them, as the standard library's
	// default transport does.
	Getenv func(string) string
	// Resolver resolves names for dials and CheckURL (net.DefaultResolver
	// when nil).
	Resolver *net.Resolver
	// LocalAddrs lists this machine's interface addresses (from
	// net.InterfaceAddrs when nil).
	LocalAddrs func() ([]netip.Addr, error)
	// HostsFile is the hosts(5) file whose names the policy knows by their
	// addresses without DNS, also for targets of the outbound proxy
	// (/etc/hosts when empty; a missing file is none). It is read once, by
	// New.
	HostsFile string
}

// Policy decides every outbound connection Keygate makes on someone's
// behalf. It is safe for concurrent use.
type Policy struct {
	laptop     bool
	allow      []destination.Entry
	own        atomic.Pointer[[]endpoint]
	ownMu      sync.Mutex // serialises writers of own
	proxies    []endpoint
	envProxy   func(*url.URL) (*url.URL, error)
	resolver   *net.Resolver
	guard      *ssrf.Guardian
	localAddrs func() ([]netip.Addr, error)
	hosts      map[string][]netip.Addr // names with fixed addresses (hostAddrs)

	connsMu sync.RWMutex
	conns   map[connEnds]int // both ends → open dialled connections
}

// endpoint is a host:port the policy knows by address, by name, or both.
type endpoint struct {
	addr netip.Addr // invalid for a name that did not resolve
	name string     // canonical name when given as a name
	port uint16
}

// sharedSpace is RFC 6598's carrier-grade NAT range (also Tailscale's).
var sharedSpace = netip.MustParsePrefix("100.64.0.0/10")

// ownLookupTimeout bounds resolving the names of Keygate's own addresses.
const ownLookupTimeout = 5 * time.Second

// New builds a Policy. It fails on an invalid allow-list entry, own
// address or outbound proxy URL.
func New(ctx context.Context, o Options) (*Policy, error) {
	allow, err := destination.ParseList(o.Allow)
	if err != nil {
		return nil, fmt.Errorf("egress allow-list: %w", err)
	}
	if o.Getenv == nil {
		o.Getenv = os.Getenv
	}
	if o.Resolver == nil {
		o.Resolver = net.DefaultResolver
	}
	if o.LocalAddrs == nil {
		o.LocalAddrs = interfaceAddrs
	}
	if o.HostsFile == "" {
		o.HostsFile = "/etc/hosts"
	}
	hosts, err := fixedHosts(o.HostsFile)
	if err != nil {
		return nil, err
	}
	p := &Policy{
		laptop: o.Laptop, allow: allow, resolver: o.Resolver, localAddrs: o.LocalAddrs,
		guard: ssrf.New(ssrf.WithAnyPort()), conns: map[connEnds]int{}, hosts: hosts,
	}
	own := []endpoint{}
	p.own.Store(&own)
	for _, a := range o.Own {
		eps, err := p.endpoints(ctx, a)
		if err != nil {
			return nil, fmt.Errorf("egress: Keygate's own address %q: %w", a, err)
		}
		p.addOwn(eps...)
	}
	p.proxies, p.envProxy, err = proxies(o.OutboundProxy, o.Getenv)
	if err != nil {
		return nil, err
	}
	return p, nil
}

// Listening adds a bound listener of Keygate's own (its actual address, for
// listeners configured on port 0): connections to it are refused from now
// on.
func (p *Policy) Listening(addr net.Addr) {
	tcp, ok := addr.(*net.TCPAddr)
	if !ok {
		return
	}
	ap := tcp.AddrPort()
	p.addOwn(endpoint{addr: ap.Addr().Unmap().WithZone(""), port: ap.Port()})
}

func (p *Policy) addOwn(eps ...endpoint) {
	if len(eps) == 0 {
		return
	}
	p.ownMu.Lock()
	defer p.ownMu.Unlock()
	next := append(append([]endpoint(nil), *p.own.Load()...), eps...)
	p.own.Store(&next)
}

// endpoints resolves an own host:port into what the policy matches.
func (p *Policy) endpoints(ctx context.Context, hostport string) ([]endpoint, error) {
	host, portStr, err := net.SplitHostPort(hostport)
	if err != nil {
		return nil, err
	}
	port, err := strconv.ParseUint(portStr, 10, 16)
	if err != nil {
		return nil, fmt.Errorf("invalid port %q", portStr)
	}
	if port == 0 {
		return nil, nil // not bound yet; Listening reports the port
	}
	if host == "" {
		return []endpoint{{addr: netip.IPv4Unspecified(), port: uint16(port)}}, nil
	}
	if ip, err := netip.ParseAddr(host); err == nil {
		return []endpoint{{addr: ip.Unmap().WithZone(""), port: uint16(port)}}, nil
	}
	name := canonicalName(host)
	eps := []endpoint{{name: name, port: uint16(port)}}
	if localName(name) {
		return append(eps, endpoint{addr: netip.IPv4Unspecified(), port: uint16(port)}), nil
	}
	ctx, cancel := context.WithTimeout(ctx, ownLookupTimeout)
	defer cancel()
	// A name that does not resolve now is still refused by name.
	ips, _ := p.resolver.LookupNetIP(ctx, "ip", host)
	for _, ip := range ips {
		eps = append(eps, endpoint{addr: ip.Unmap().WithZone(""), port: uint16(port)})
	}
	return eps, nil
}

// proxies reads the outbound proxies Keygate may dial, and the proxy choice
// of the HTTP client (the environment's). An explicit setting that is not
// a URL is an error (upstream.New refuses it too); an environment value
// that is not one is skipped: no client can use it either.
func proxies(explicit string, getenv func(string) string) ([]endpoint, func(*url.URL) (*url.URL, error), error) {
	env := func(names ...string) string {
		for _, n := range names {
			if v := strings.TrimSpace(getenv(n)); v != "" {
				return v
			}
		}
		return ""
	}
	cfg := &httpproxy.Config{
		HTTPProxy:  env("HTTP_PROXY", "http_proxy"),
		HTTPSProxy: env("HTTPS_PROXY", "https_proxy"),
		NoProxy:    env("NO_PROXY", "no_proxy"),
	}
	var eps []endpoint
	if explicit != "" && explicit != "direct" {
		ep, ok := proxyEndpoint(explicit)
		if !ok {
			return nil, nil, errors.New("egress: the outbound proxy setting is not a URL; want http://host:port")
		}
		eps = append(eps, ep)
	}
	for _, raw := range []string{cfg.HTTPProxy, cfg.HTTPSProxy} {
		if ep, ok := proxyEndpoint(raw); ok {
			eps = append(eps, ep)
		}
	}
	return eps, cfg.ProxyFunc(), nil
}

// proxyEndpoint is the host:port a proxy URL names (a bare host:port reads
// as http://, as httpproxy reads it).
func proxyEndpoint(raw string) (endpoint, bool) {
	if raw == "" {
		return endpoint{}, false
	}
	if !strings.Contains(raw, "://") {
		raw = "http://" + raw
	}
	u, err := url.Parse(raw)
	if err != nil || u.Hostname() == "" {
		return endpoint{}, false
	}
	port := u.Port()
	if port == "" {
		port = map[string]string{"https": "443", "socks5": "1080", "socks5h": "1080"}[u.Scheme]
		if port == "" {
			port = "80"
		}
	}
	n, err := strconv.ParseUint(port, 10, 16)
	if err != nil {
		return endpoint{}, false
	}
	if ip, err := netip.ParseAddr(u.Hostname()); err == nil {
		return endpoint{addr: ip.Unmap().WithZone(""), port: uint16(n)}, true
	}
	return endpoint{name: canonicalName(u.Hostname()), port: uint16(n)}, true
}

// view is which rules of the policy decide: all of them, or those of a
// narrower view (Policy.Public, Policy.Named).
type view uint8

const (
	fullView view = iota
	// namedView: of the allow-list only the host-name entries, matched
	// against the name asked for.
	namedView
	// publicView: no allow-list and no laptop exception.
	publicView
)

// decide is the policy for a connection to ap asked for as host (a name or
// the IP literal). See the package documentation for the order; v narrows
// it (the public-only view skips the allow-list and the laptop's
// exception, the named view the allow-list's address entries).
func (p *Policy) decide(host string, ap netip.AddrPort, v view) error {
	public := v == publicView
	ip, port := ap.Addr().Unmap().WithZone(""), ap.Port()
	ap = netip.AddrPortFrom(ip, port)
	dest := func() string { return net.JoinHostPort(host, strconv.Itoa(int(port))) }
	if p.isOwn(host, ip, port) {
		return &RefusedError{Dest: dest(), Addr: ap, Own: true, Reason: "it is Keygate's own listener or database"}
	}
	if ip.IsUnspecified() {
		return &RefusedError{Dest: dest(), Addr: ap, Reason: "the unspecified address means this machine", Public: public}
	}
	if p.isProxy(host, ip, port) {
		return nil
	}
	if p.guard.SafeAddr(ip) == nil {
		return nil
	}
	if public {
		return &RefusedError{Dest: dest(), Addr: ap, Reason: class(ip), Public: true}
	}
	byName := v == namedView && !isIPLiteral(host)
	for _, e := range p.allow {
		if byName && e.Host == "" {
			continue // an address entry opens an address, not a name that resolves to it
		}
		if e.Matches(host, ip, port) {
			return nil
		}
	}
	if p.laptop && (ip.IsLoopback() || ip.IsPrivate() || sharedSpace.Contains(ip)) {
		return nil
	}
	return &RefusedError{Dest: dest(), Addr: ap, Reason: class(ip)}
}

// class names why an address is refused.
func class(ip netip.Addr) string {
	switch {
	case ip.IsLoopback():
		return "a loopback address (this machine)"
	case ip.IsLinkLocalUnicast():
		return "a link-local address (where cloud metadata services answer, 169.254.169.254)"
	case ip.IsPrivate():
		return "a private address"
	case sharedSpace.Contains(ip):
		return "a shared (carrier-grade NAT) address"
	case ip.IsMulticast():
		return "a multicast address"
	default:
		return "a special-purpose address (IANA registry), not a public one"
	}
}

// isOwn reports whether host / ip:port is one of Keygate's own listeners or
// its database.
func (p *Policy) isOwn(host string, ip netip.Addr, port uint16) bool {
	name := canonicalName(host)
	local := -1 // unknown until needed: listing interfaces is a system call
	for _, e := range *p.own.Load() {
		if e.port != port {
			continue
		}
		if e.name != "" && e.name == name {
			return true
		}
		if !e.addr.IsValid() {
			continue
		}
		if e.addr == ip {
			return true
		}
		if !e.addr.IsUnspecified() && !e.addr.IsLoopback() {
			continue
		}
		// Bound to every address, or to loopback (a server there may well
		// listen on every address too): this machine's addresses all count.
		if ip.IsLoopback() || ip.IsUnspecified() {
			return true
		}
		if local < 0 {
			local = 0
			if p.isLocal(ip) {
				local = 1
			}
		}
		if local == 1 {
			return true
		}
	}
	return false
}

// isLocal reports whether ip is an address of a local interface. An error
// listing them counts as local: refusing is the safe side.
func (p *Policy) isLocal(ip netip.Addr) bool {
	addrs, err := p.localAddrs()
	if err != nil {
		return true
	}
	for _, a := range addrs {
		if a.Unmap().WithZone("") == ip {
			return true
		}
	}
	return false
}

func (p *Policy) isProxy(host string, ip netip.Addr, port uint16) bool {
	name := canonicalName(host)
	for _, e := range p.proxies {
		if e.port == port && ((e.name != "" && e.name == name) || (e.addr.IsValid() && e.addr == ip)) {
			return true
		}
	}
	return false
}

// refusedByName refuses a name of Keygate's own before it is resolved (a
// name that did not resolve when the policy was built).
func (p *Policy) refusedByName(host string, port uint16) error {
	if _, err := netip.ParseAddr(host); err == nil {
		return nil
	}
	name := canonicalName(host)
	for _, e := range *p.own.Load() {
		if e.port == port && e.name != "" && e.name == name {
			return &RefusedError{Dest: net.JoinHostPort(host, strconv.Itoa(int(port))), Own: true,
				Reason: "it is Keygate's own listener or database"}
		}
	}
	return nil
}

// CheckProxied decides a target (host:port) Keygate is about to reach
// through the outbound proxy, which resolves names itself. The host is read
// as the proxy's resolver reads it before asking DNS (hostAddrs): an IP
// address in any literal form (2130706433, 0x7f000001, 127.1, 0177.0.0.1,
// [::ffff:7f00:1]) and a name with fixed addresses (localhost4,
// ip6-localhost, names of this machine's /etc/hosts) are decided by the
// full policy on those addresses; a host no resolver reads the same way is
// refused; names of Keygate's own addresses are refused by name. Other
// names are left to the proxy: an administrator configured them.
func (p *Policy) CheckProxied(ctx context.Context, hostport string) error {
	return p.checkProxied(ctx, hostport, fullView)
}

func (p *Policy) checkProxied(ctx context.Context, hostport string, v view) error {
	host, port, err := splitHostPort(hostport)
	if err != nil {
		return err
	}
	host = asciiHost(host)
	if decided, err := p.decideFixed(host, port, v); decided {
		return err
	}
	if v != publicView {
		return nil
	}
	// A name a model chose may point anywhere (a public name for
	// 127.0.0.1): what Keygate's resolver answers must be public too.
	return p.decideResolved(ctx, host, port, v)
}

// decideFixed decides host:port when what host means is known without DNS
// (hostAddrs), or when it is a name of Keygate's own; decided is false for
// any other name.
func (p *Policy) decideFixed(host string, port uint16, v view) (decided bool, err error) {
	dest := func() string { return net.JoinHostPort(host, strconv.Itoa(int(port))) }
	addrs, fixed, err := p.hostAddrs(host)
	if err != nil {
		return true, &RefusedError{Dest: dest(), Invalid: true,
			Reason: "it is " + err.Error() + ", so resolvers disagree on what it means"}
	}
	if err := p.refusedByName(host, port); err != nil {
		return true, err
	}
	if !fixed {
		return false, nil
	}
	for _, ip := range addrs {
		if err := p.decide(host, netip.AddrPortFrom(ip, port), v); err != nil {
			return true, err
		}
	}
	return true, nil
}

// lookupTimeout bounds a name resolution made only to judge a name.
const lookupTimeout = 5 * time.Second

// decideResolved decides host:port by every address Keygate's resolver
// answers for host (all must be allowed, since a dial, or a proxy, may pick
// any). A name that does not resolve here passes: it may resolve only
// through the outbound proxy, and every dial is decided again anyway.
func (p *Policy) decideResolved(ctx context.Context, host string, port uint16, v view) error {
	ctx, cancel := context.WithTimeout(ctx, lookupTimeout)
	defer cancel()
	ips, err := p.resolver.LookupNetIP(ctx, "ip", host)
	if err != nil {
		return nil
	}
	for _, ip := range ips {
		if err := p.decide(host, netip.AddrPortFrom(ip, port), v); err != nil {
			return err
		}
	}
	return nil
}

// CheckURL applies the policy to the origin of an http(s) URL, for
// validating a provider base URL when an administrator saves it: a host
// with fixed addresses as CheckProxied reads it, a name by every address it
// resolves to (decideResolved). Errors never echo the URL.
func (p *Policy) CheckURL(ctx context.Context, rawURL string) error {
	u, err := url.Parse(strings.TrimSpace(rawURL))
	if err != nil {
		return errors.New("egress: not a valid URL")
	}
	if u.Scheme != "http" && u.Scheme != "https" {
		return errors.New("egress: the URL must start with http:// or https://")
	}
	if u.Hostname() == "" {
		return errors.New("egress: the URL has no host")
	}
	host, port, err := splitHostPort(canonicalAddr(u))
	if err != nil {
		return err
	}
	host = asciiHost(host)
	if decided, err := p.decideFixed(host, port, fullView); decided {
		return err
	}
	return p.decideResolved(ctx, host, port, fullView)
}

// canonicalAddr is a URL's host:port with the scheme's default port.
func canonicalAddr(u *url.URL) string {
	port := u.Port()
	if port == "" {
		port = "80"
		if u.Scheme == "https" {
			port = "443"
		}
	}
	return net.JoinHostPort(u.Hostname(), port)
}

func splitHostPort(hostport string) (string, uint16, error) {
	host, portStr, err := net.SplitHostPort(hostport)
	if err != nil {
		return "", 0, fmt.Errorf("egress: destination %q: %w", hostport, err)
	}
	port, err := strconv.ParseUint(portStr, 10, 16)
	if err != nil {
		return "", 0, fmt.Errorf("egress: destination %q: invalid port", hostport)
	}
	return host, uint16(port), nil
}

// isIPLiteral reports whether host is an IP address rather than a name.
func isIPLiteral(host string) bool {
	_, err := netip.ParseAddr(strings.TrimSuffix(strings.TrimPrefix(host, "["), "]"))
	return err == nil
}

func canonicalName(host string) string { return strings.TrimSuffix(strings.ToLower(host), ".") }

// localName reports whether a name always means this machine (RFC 6761).
func localName(name string) bool {
	return name == "localhost" || strings.HasSuffix(name, ".localhost") || name == "localhost.localdomain"
}

func interfaceAddrs() ([]netip.Addr, error) {
	addrs, err := net.InterfaceAddrs()
	if err != nil {
		return nil, fmt.Errorf("list interface addresses: %w", err)
	}
	out := make([]netip.Addr, 0, len(addrs))
	for _, a := range addrs {
		if n, ok := a.(*net.IPNet); ok {
			if ip, ok := netip.AddrFromSlice(n.IP); ok {
				out = append(out, ip.Unmap())
			}
		}
	}
	return out, nil
}
