package destination

import (
	"errors"
	"fmt"
	"net"
	"net/netip"
	"strconv"
	"strings"
)

// ErrSyntax: an allow-list entry is none of the accepted forms.
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
	if ip, err := netip.ParseAddr(raw); err == nil {
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

// canonicalName is a host name compared case-insensitively and without a
// trailing dot.
func canonicalName(host string) string {
	return strings.TrimSuffix(strings.ToLower(host), ".")
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
