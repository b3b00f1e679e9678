package destination

import (
	"errors"
	"fmt"
	"net"
	"strconv"
	"strings"
)

// ErrBadPattern: an allow-list entry is not a host name, *.domain or IP
// address, with an optional port.
var ErrBadPattern = errors.New("want host, *.domain or an IP address, optionally with :port")

// Pattern is one allow-list entry. The zero value matches nothing.
type Pattern struct {
	// host is normalised (lower case, no trailing dot); for a wildcard it
	// is the domain after "*.".
	host     string
	wildcard bool
	// port is 0 when the entry names none: the scheme's default applies.
	port int
}

// ParsePattern reads one entry: "host", "*.domain", an IP address, each
// optionally followed by ":port" (IPv6 with a port in brackets).
func ParsePattern(s string) (Pattern, error) {
	raw := strings.TrimSpace(s)
	host, port := raw, 0
	if h, p, err := net.SplitHostPort(raw); err == nil {
		n, err := strconv.Atoi(p)
		if err != nil || n < 1 || n > 65535 {
			return Pattern{}, fmt.Errorf("%q: port %q: %w", raw, p, ErrBadPattern)
		}
		host, port = h, n
	}
	host = Normalize(strings.TrimSuffix(strings.TrimPrefix(host, "["), "]"))
	p := Pattern{host: host, port: port}
	if rest, ok := strings.CutPrefix(host, "*."); ok {
		p.host, p.wildcard = rest, true
		// A wildcard over a top-level domain ("*.com") would open half
		// the internet; ask for at least two labels.
		if !strings.Contains(rest, ".") || !isName(rest) {
			return Pattern{}, fmt.Errorf("%q: %w", raw, ErrBadPattern)
		}
		return p, nil
	}
	if net.ParseIP(host) == nil && !isName(host) {
		return Pattern{}, fmt.Errorf("%q: %w", raw, ErrBadPattern)
	}
	return p, nil
}

// String is the entry as an operator writes it.
func (p Pattern) String() string {
	h := p.host
	if p.wildcard {
		h = "*." + h
	}
	if p.port == 0 {
		return h
	}
	return net.JoinHostPort(h, strconv.Itoa(p.port))
}

// Matches reports whether host:port is what p names; defaultPort is the
// port of the request's scheme, the only one an entry without a port
// admits.
func (p Pattern) Matches(host string, port, defaultPort int) bool {
	if p.host == "" {
		return false
	}
	want := p.port
	if want == 0 {
		want = defaultPort
	}
	if port != want {
		return false
	}
	host = Normalize(host)
	if p.wildcard {
		return strings.HasSuffix(host, "."+p.host)
	}
	return host == p.host
}

// Allowlist is a parsed pass-through list. An empty list admits nothing.
type Allowlist []Pattern

// ParseAllowlist parses every entry, reporting all bad ones at once.
func ParseAllowlist(entries []string) (Allowlist, error) {
	out := make(Allowlist, 0, len(entries))
	var errs []error
	for _, e := range entries {
		p, err := ParsePattern(e)
		if err != nil {
			errs = append(errs, err)
			continue
		}
		out = append(out, p)
	}
	if err := errors.Join(errs...); err != nil {
		return nil, err
	}
	return out, nil
}

// Allows reports whether any entry matches host:port.
func (l Allowlist) Allows(host string, port, defaultPort int) bool {
	for _, p := range l {
		if p.Matches(host, port, defaultPort) {
			return true
		}
	}
	return false
}

// Normalize is the form names are compared in: lower case, without the
// trailing dot of a fully qualified name.
func Normalize(host string) string {
	return strings.TrimSuffix(strings.ToLower(strings.TrimSpace(host)), ".")
}

// isName reports whether s is a DNS host name: dot-separated labels of
// letters, digits, '-' and '_' (seen in real service names), none empty,
// longer than 63 bytes or starting or ending with '-'.
func isName(s string) bool {
	if s == "" || len(s) > 253 {
		return false
	}
	for _, label := range strings.Split(s, ".") {
		if label == "" || len(label) > 63 || label[0] == '-' || label[len(label)-1] == '-' {
			return false
		}
		for _, c := range label {
			if !(c >= 'a' && c <= 'z' || c >= '0' && c <= '9' || c == '-' || c == '_') {
				return false
			}
		}
	}
	return true
}
