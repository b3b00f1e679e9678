package destination

import (
	"errors"
	"fmt"
	"net"
	"net/netip"
	"strconv"
	"strings"
)

// ErrSyntax means an allow-list entry is none of the accepted forms.
var ErrSyntax = errors.New("want an IP (10.0.0.7), a CIDR range (10.0.0.0/8), a host name (models.corp, *.corp) or any of them with :port")

// Entry is one parsed allow-list entry. Exactly one of Prefix and Host is
// set.
type Entry struct {
	// Prefix is the range of a CIDR or IP entry (an IP is a /32 or /128).
	Prefix netip.Prefix
	// Host is the lower-case name of a host entry; a leading "*." names
	// every host under the rest (not the rest itself).
	Host string
	// Port limits the entry to one port; 0 means every port.
	Port uint16
}

// Parse reads one entry: an IP, a CIDR range, a host name (optionally
// "*.domain"), or an IP or host name with ":port" ("[v6]:port" for IPv6).
// IPv4-mapped IPv6 forms are read as IPv4. It refuses the unspecified
// addresses and the ranges that cover everything (0.0.0.0/0, ::/0): an
// operator opens what they name, never the whole network.
func Parse(s string) (Entry, error) {
	raw := strings.TrimSpace(s)
	fail := func(reason error) (Entry, error) { return Entry{}, fmt.Errorf("allow-list entry %q: %w", raw, reason) }
	switch {
	case raw == "":
		return fail(errors.New("is empty"))
	case strings.Contains(raw, "://"):
		return fail(errors.New("is a URL; write its host or host:port"))
	}
	if ip, err := netip.ParseAddr(strings.TrimSuffix(strings.TrimPrefix(raw, "["), "]")); err == nil {
		return addrEntry(ip, 0, fail)
	}
	if strings.Contains(raw, "/") {
		p, err := netip.ParsePrefix(raw)
		switch {
		case err != nil:
			return fail(ErrSyntax)
		case p.Addr().Is4In6():
			return fail(errors.New("is an IPv4-mapped IPv6 range; write the IPv4 range"))
		case p.Bits() == 0:
			return fail(errors.New("covers every address; name the ranges Keygate may reach"))
		}
		return Entry{Prefix: p.Masked()}, nil
	}
	if host, port, err := net.SplitHostPort(raw); err == nil {
		n, err := strconv.ParseUint(port, 10, 16)
		if err != nil || n == 0 {
			return fail(errors.New("has an invalid port; want 1 to 65535"))
		}
		if ip, err := netip.ParseAddr(host); err == nil {
			return addrEntry(ip, uint16(n), fail)
		}
		if !validName(host) {
			return fail(ErrSyntax)
		}
		return Entry{Host: canonicalName(host), Port: uint16(n)}, nil
	}
	if !validName(raw) {
		return fail(ErrSyntax)
	}
	return Entry{Host: canonicalName(raw)}, nil
}

func addrEntry(ip netip.Addr, port uint16, fail func(error) (Entry, error)) (Entry, error) {
	if ip.Zone() != "" {
		return fail(errors.New("has an IPv6 zone; write the address without it"))
	}
	ip = ip.Unmap()
	if ip.IsUnspecified() {
		return fail(errors.New("is the unspecified address, which means this machine; it cannot be allowed"))
	}
	return Entry{Prefix: netip.PrefixFrom(ip, ip.BitLen()), Port: port}, nil
}

// ParseList parses every entry and reports every bad one at once.
func ParseList(entries []string) ([]Entry, error) {
	out := make([]Entry, 0, len(entries))
	var errs []error
	for _, s := range entries {
		e, err := Parse(s)
		if err != nil {
			errs = append(errs, err)
			continue
		}
		out = append(out, e)
	}
	if err := errors.Join(errs...); err != nil {
		return nil, err
	}
	return out, nil
}

// Matches reports whether the entry names a connection to ip:port that was
// asked for by host (the name as dialled, or the IP literal itself).
// A range entry matches the address, a host entry the name; the address a
// name resolved to never matches a host entry of another name.
func (e Entry) Matches(host string, ip netip.Addr, port uint16) bool {
	if e.Port != 0 && e.Port != port {
		return false
	}
	if e.Prefix.IsValid() {
		return ip.IsValid() && e.Prefix.Contains(ip.Unmap().WithZone(""))
	}
	name := canonicalName(host)
	if rest, ok := strings.CutPrefix(e.Host, "*."); ok {
		return strings.HasSuffix(name, "."+rest)
	}
	return name == e.Host
}

// String is the entry in the form Parse reads.
func (e Entry) String() string {
	var host string
	switch {
	case e.Prefix.IsValid() && e.Prefix.IsSingleIP():
		host = e.Prefix.Addr().String()
	case e.Prefix.IsValid():
		return e.Prefix.String()
	default:
		host = e.Host
	}
	if e.Port == 0 {
		return host
	}
	return net.JoinHostPort(host, strconv.Itoa(int(e.Port)))
}

// Normalize is the form host names are compared in: lower case, without
// surrounding spaces or the trailing dot of a fully qualified name.
func Normalize(host string) string {
	return strings.TrimSuffix(strings.ToLower(strings.TrimSpace(host)), ".")
}

func canonicalName(host string) string { return Normalize(host) }

// Allowlist is the company proxy's pass-through list: the destinations,
// besides the Cursor hosts Keygate intercepts, that a member's editor may
// reach through Keygate. Its entries are Parse's forms, with two
// differences from the outbound allow-list: an entry without a port admits
// only the request scheme's default port (443 for CONNECT, 80 for plain
// HTTP), since a pass-through host is a web service, not every service on
// that machine; and a wildcard needs at least two labels ("*.cursorapi.com",
// never "*.com", which would open half the internet). An empty list admits
// nothing.
type Allowlist []Entry

// ParseAllowlist parses a pass-through list, reporting every bad entry at
// once.
func ParseAllowlist(entries []string) (Allowlist, error) {
	list, err := ParseList(entries)
	var errs []error
	if err != nil {
		errs = append(errs, err)
	}
	for _, e := range list {
		if rest, ok := strings.CutPrefix(e.Host, "*."); ok && !strings.Contains(rest, ".") {
			errs = append(errs, fmt.Errorf("pass-through entry %q: a wildcard over a top-level domain opens too much; name the domain (*.example.com): %w", e, ErrSyntax))
		}
	}
	if err := errors.Join(errs...); err != nil {
		return nil, err
	}
	return Allowlist(list), nil
}

// Allows reports whether a request for host:port, host being a name or an
// IP literal as the client asked for it, may pass; defaultPort is the port
// of the request's scheme, the only one an entry without a port admits.
func (l Allowlist) Allows(host string, port, defaultPort int) bool {
	if port < 1 || port > 65535 {
		return false
	}
	ip, _ := netip.ParseAddr(strings.TrimSuffix(strings.TrimPrefix(host, "["), "]"))
	for _, e := range l {
		want := int(e.Port)
		if want == 0 {
			want = defaultPort
		}
		if port != want {
			continue
		}
		if e.Prefix.IsValid() && !ip.IsValid() {
			continue // a range names addresses, never what a name resolves to
		}
		if e.Matches(host, ip, uint16(port)) {
			return true
		}
	}
	return false
}

// validName accepts DNS names (letters, digits, '-', '_' in labels of 1 to
// 63 bytes, 253 bytes in all, the last not all digits), optionally starting
// with the "*." wildcard.
func validName(s string) bool {
	s = strings.TrimSuffix(strings.TrimPrefix(s, "*."), ".")
	if s == "" || len(s) > 253 {
		return false
	}
	labels := strings.Split(s, ".")
	if _, err := strconv.Atoi(labels[len(labels)-1]); err == nil {
		return false // a mistyped IP such as 10.0.0.300, not a name
	}
	for _, label := range labels {
		if label == "" || len(label) > 63 || label[0] == '-' || label[len(label)-1] == '-' {
			return false
		}
		for _, c := range label {
			if !(c >= 'a' && c <= 'z' || c >= 'A' && c <= 'Z' || c >= '0' && c <= '9' || c == '-' || c == '_') {
				return false
			}
		}
	}
	return true
}
