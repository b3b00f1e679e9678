// Package egress is Keygate's one outbound policy: every connection Keygate
// opens on someone's behalf (proxy tunnels and plain forwards, the Cursor
// pass-through, provider calls, model discovery) is dialled by a Policy,
// which decides on the address actually being connected.
//
// Place in the hexagon: an outbound adapter that other adapters are given by
// the composition root: adapters/upstream dials through it, and the provider
// and discovery clients use its HTTP client. Imports: the standard library,
// domain/destination (the allow-list grammar), ports, code.dny.dev/ssrf (the
// address ranges), golang.org/x/net/http/httpproxy and
// golang.org/x/net/idna.
//
// What it refuses. The decision is made in net.Dialer.Control, on the IP
// and port the socket is about to connect to, after name resolution, so a
// name that resolves to one address when checked and another when dialled
// (DNS rebinding) cannot slip through; IPv4-mapped IPv6 addresses are
// unmapped first. In order:
//
//  1. Keygate's own listeners (console and API, forward proxy, agent
//     listener) and its database are always refused, whatever the
//     allow-list says. A listener bound to 0.0.0.0, :: or a loopback
//     address counts on every loopback address and every address of a
//     local interface, since a connection to any of them may reach it.
//  2. The unspecified addresses (0.0.0.0, ::), which mean this machine.
//  3. The operator's outbound proxy (explicit, or HTTPS_PROXY / HTTP_PROXY)
//     is allowed: reaching it is how proxy-only networks work.
//  4. The allow-list (KEYGATE_EGRESS_ALLOW): IPs, CIDR ranges, host names
//     (matched against the name asked for, not the address it resolved
//     to) and any of them with a port.
//  5. Public addresses are allowed; everything in the IANA special-purpose
//     registries is refused: loopback, link-local (169.254.169.254 is the
//     cloud metadata service), private (RFC 1918, fc00::/7), shared
//     (100.64.0.0/10), multicast, documentation and reserved ranges, and
//     every IPv6 address outside global unicast.
//     One narrow exception: InstanceMetadataClient reaches the instance
//     metadata service (169.254.169.254:80, [fd00:ec2::254]:80) and
//     nothing else, for a cloud provider whose administrator chose the
//     instance-role credential source; no other client may.
//  6. On a laptop (local sign-in), loopback, private and shared addresses
//     are allowed too, so a developer's own model server (Ollama on
//     localhost:11434) works without set-up; rules 1 and 2 still hold.
//
// Through the outbound proxy. When a target is reached through the outbound
// proxy, the proxy resolves its name from its own network position, and
// Keygate's resolver may not even know the name on a proxy-only network.
// The target is still decided before anything is sent, read as the proxy's
// resolver reads it before asking DNS (host.go): an IP literal in any form
// inet_aton(3) or inet_pton(3) accepts (2130706433, 0x7f000001, 127.1,
// 0177.0.0.1, 0, [::ffff:7f00:1], [::1%lo]), a name with fixed addresses
// (localhost and *.localhost, the aliases common /etc/hosts files define
// such as localhost4 and ip6-localhost, and the names of this machine's
// /etc/hosts) by the rules above on those addresses; a host no resolver
// reads the same way (1.2.3.4.5, 127.0.0.08) is refused outright; names of
// Keygate's own listeners and database by name. A name a model chose (the
// public-only view below) is also resolved by Keygate and refused when any
// answer is not public, since anyone can point a public DNS name at
// 127.0.0.1. Other names, and a model's name Keygate cannot resolve, are
// the proxy's to allow or refuse (and a name that changes its answer
// between Keygate's lookup and the proxy's): an operator who routes Keygate
// through a proxy makes that proxy the policy for names, and should have it
// refuse loopback and private destinations too.
//
// The IPv4 forms are read by a small parser of this package rather than a
// library: the standard library reads only dotted-quad decimal (by design),
// and no maintained Go module implements inet_aton's rules. The parser
// reads what inet_aton reads and what the URL standard's host parser reads
// (a trailing dot, a bare 0x), so that it reads at least what either does;
// a part with a leading zero, octal to inet_aton and decimal to some other
// readers, is judged both ways.
//
// Redirects. The HTTP client follows redirects only within the origin
// (scheme, host and port) of the first request, five requests in all (a
// trailing slash or a versioned path moved on the same server is harmless:
// that origin already holds the credentials), and refuses one to another
// origin with ErrCrossOriginRedirect before sending anything there: provider
// requests carry credentials (Authorization, x-api-key, Azure's api-key) and
// custom headers that must reach only the origin an administrator
// configured. A redirect from https to http on the same host is another
// origin too.
//
// Destinations a model chose. The agent's web fetch dials through Public, a
// view of the same policy that allows public addresses only: rules 1 and 2
// hold, the outbound proxy may be dialled, and neither the allow-list nor a
// laptop opens loopback, link-local, private or shared addresses, because a
// URL in a prompt is not an administrator's choice.
//
// Names a client chose. The Cursor pass-through dials through Named, a
// view in which the allow-list's address entries (IPs, CIDR ranges) do not
// open a host name that resolves to them: a member's editor names any
// *.cursor.sh host, and a DNS answer pointing one inward must not reach the
// self-hosted model an administrator allow-listed by address. An entry
// naming the host itself (api2.cursor.sh, *.cursor.sh) still opens it.
//
// Errors for users. Redact rewrites a failed request's error for a user
// or a model to read (web fetches and searches): what went wrong, never
// the DNS resolver, the outbound proxy, Keygate's own addresses or what an
// internal name resolved to, which Go's own messages name.
//
// Originated tells whether an open connection was dialled by Keygate, so
// that a request arriving on a connection Keygate itself opened (through a
// load balancer that keeps the source address) is never trusted as coming
// from a sign-in proxy. It compares both ends of the connection: a client
// whose source port equals one Keygate dials another destination from
// (Linux shares local ports across destinations) is not Keygate.
//
// The address classes come from code.dny.dev/ssrf, which generates its
// deny lists from the IANA IPv4 and IPv6 special-purpose registries and is
// made for net.Dialer.Control. Its Guardian decides allow-list prefixes
// before its deny list and knows nothing of ports or names, so this package
// uses it only to classify an address (SafeAddr) and keeps the order above
// (own listeners before the allow-list, names, laptop mode) itself.
package egress
