package egress

import (
	"bufio"
	"errors"
	"fmt"
	"io"
	"net/netip"
	"os"
	"strconv"
	"strings"

	"golang.org/x/net/idna"
)

// errNotAHost is a host that is neither an IP address in any form nor a
// DNS name: no resolver agrees on what it means, so it is refused.
var errNotAHost = errors.New("neither an IP address nor a host name")

// asciiHost is host as net/http sends it, to a proxy too: a name that is
// not ASCII converted by IDNA's lookup profile (fullwidth digits become
// ASCII ones), anything that does not convert left as it is.
func asciiHost(host string) string {
	for i := 0; i < len(host); i++ {
		if host[i] >= 0x80 {
			if v, err := idna.Lookup.ToASCII(host); err == nil {
				return v
			}
			return host
		}
	}
	return host
}

// hostAddrs reads host (ASCII, as asciiHost gives it) as a resolver reads it
// before asking DNS: an IP address in any literal form (parseLiteral), or a
// name that means fixed addresses without DNS (p.hosts: the loopback
// aliases of /etc/hosts files, and this machine's /etc/hosts). ok is false
// for any other name; err is errNotAHost for a host no resolver reads the
// same way.
func (p *Policy) hostAddrs(host string) (addrs []netip.Addr, ok bool, err error) {
	addrs, ok, err = parseLiteral(host)
	if err != nil || ok {
		return addrs, ok, err
	}
	name := canonicalName(host)
	if localName(name) {
		return []netip.Addr{netip.AddrFrom4([4]byte{127, 0, 0, 1})}, true, nil
	}
	if a, found := p.hosts[name]; found {
		return a, true, nil
	}
	return nil, false, nil
}

// parseLiteral reads host as an IP address the way resolvers do: IPv6 as
// inet_pton reads it (with or without a zone, IPv4-mapped and -compatible
// forms included) and IPv4 as inet_aton reads it (parseIPv4). A part with
// a leading zero is octal to inet_aton but decimal to other readers (Go
// before 1.17, older JDKs): 010.0.0.1 is 8.0.0.1 or 10.0.0.1, so both are
// returned, to be judged both. ok is false for a name. A host that ends in a numeric label but is no valid IPv4
// address (1.2.3.4.5, 127.0.0.08), or holds a colon but is no IPv6 address,
// or holds a byte no host name holds, is errNotAHost: resolvers disagree on
// it (getaddrinfo asks DNS, the URL standard refuses it), and no public name
// looks like that (no top-level domain is numeric).
func parseLiteral(host string) ([]netip.Addr, bool, error) {
	if strings.Contains(host, ":") {
		ip, err := netip.ParseAddr(host)
		if err != nil {
			return nil, false, errNotAHost
		}
		return []netip.Addr{ip.Unmap().WithZone("")}, true, nil
	}
	for i := 0; i < len(host); i++ {
		if c := host[i]; !(c == '.' || c == '-' || c == '_' || '0' <= c && c <= '9' || 'a' <= c && c <= 'z' || 'A' <= c && c <= 'Z') {
			return nil, false, errNotAHost
		}
	}
	trimmed := strings.TrimSuffix(host, ".")
	last := trimmed[strings.LastIndexByte(trimmed, '.')+1:]
	if !numericLabel(last) {
		return nil, false, nil // a name
	}
	ip, ok := parseIPv4(trimmed, true)
	if !ok {
		return nil, false, errNotAHost
	}
	addrs := []netip.Addr{ip}
	if dec, ok := parseIPv4(trimmed, false); ok && dec != ip {
		addrs = append(addrs, dec)
	}
	return addrs, true, nil
}

// parseIPv4 reads an IPv4 address as inet_aton(3) does, which getaddrinfo,
// and so most proxies, apply to a host before asking DNS: one to four
// parts separated by dots, each decimal, octal (a leading 0) or
// hexadecimal (a leading 0x); the last part fills the bytes the others
// leave (127.1 is 127.0.0.1, 2130706433 is 127.0.0.1, 0 is 0.0.0.0). It
// also reads a bare 0x as 0, as the URL standard's host parser does, so
// that it reads at least what either reads. With octal false, a part with
// a leading zero is read as decimal instead.
func parseIPv4(s string, octal bool) (netip.Addr, bool) {
	parts := strings.Split(s, ".")
	if len(parts) > 4 {
		return netip.Addr{}, false
	}
	var v uint64
	for i, part := range parts {
		n, ok := ipv4Part(part, octal)
		if !ok {
			return netip.Addr{}, false
		}
		if i < len(parts)-1 {
			if n > 0xff {
				return netip.Addr{}, false
			}
			v |= n << (8 * (3 - i))
			continue
		}
		// The last part fills the bytes left: 32, 24, 16 or 8 bits.
		if n >= 1<<(8*(4-i)) {
			return netip.Addr{}, false
		}
		v |= n
	}
	return netip.AddrFrom4([4]byte{byte(v >> 24), byte(v >> 16), byte(v >> 8), byte(v)}), true
}

// ipv4Part reads one part of an inet_aton address, bounded to 32 bits.
func ipv4Part(s string, octal bool) (uint64, bool) {
	base, digits := 10, s
	switch {
	case len(s) >= 2 && s[0] == '0' && (s[1] == 'x' || s[1] == 'X'):
		base, digits = 16, s[2:]
		if digits == "" {
			return 0, true
		}
	case octal && len(s) > 1 && s[0] == '0':
		base, digits = 8, s[1:]
	}
	n, err := strconv.ParseUint(digits, base, 32)
	return n, err == nil
}

// numericLabel reports whether a host's last label is a number, decimal
// digits or 0x and hex digits, as the URL standard's "ends in a number"
// asks: such a host is read as an IPv4 address or refused.
func numericLabel(s string) bool {
	digits, isDigit := s, func(c byte) bool { return '0' <= c && c <= '9' }
	if len(s) >= 2 && s[0] == '0' && (s[1] == 'x' || s[1] == 'X') {
		digits = s[2:]
		isDigit = func(c byte) bool { return '0' <= c && c <= '9' || 'a' <= c && c <= 'f' || 'A' <= c && c <= 'F' }
		if digits == "" {
			return true
		}
	}
	if digits == "" {
		return false
	}
	for i := 0; i < len(digits); i++ {
		if !isDigit(digits[i]) {
			return false
		}
	}
	return true
}

// loopbackAliases are the names /etc/hosts files of common systems give
// loopback and the IPv6 special addresses (Debian, Ubuntu, RHEL, Alpine).
// A proxy, which may run elsewhere, resolves them from its own /etc/hosts,
// so they are known here whatever this machine's says.
var loopbackAliases = map[string]string{
	"localhost4":              "127.0.0.1",
	"localhost4.localdomain4": "127.0.0.1",
	"localhost6":              "::1",
	"localhost6.localdomain6": "::1",
	"ip6-localhost":           "::1",
	"ip6-loopback":            "::1",
	"ip6-localnet":            "fe00::",
	"ip6-mcastprefix":         "ff00::",
	"ip6-allnodes":            "ff02::1",
	"ip6-allrouters":          "ff02::2",
	"ip6-allhosts":            "ff02::3",
}

// maxHostsFile bounds the /etc/hosts read: a large one is a mistake.
const maxHostsFile = 1 << 20

// fixedHosts is loopbackAliases and the names of the hosts file at path
// ("" for none), canonical name → addresses. A missing file is no error.
func fixedHosts(path string) (map[string][]netip.Addr, error) {
	out := map[string][]netip.Addr{}
	for name, a := range loopbackAliases {
		out[name] = []netip.Addr{netip.MustParseAddr(a)}
	}
	if path == "" {
		return out, nil
	}
	f, err := os.Open(path)
	if errors.Is(err, os.ErrNotExist) {
		return out, nil
	}
	if err != nil {
		return nil, fmt.Errorf("egress: read the hosts file: %w", err)
	}
	defer f.Close()
	if err := readHosts(io.LimitReader(f, maxHostsFile), out); err != nil {
		return nil, fmt.Errorf("egress: read the hosts file %s: %w", path, err)
	}
	return out, nil
}

// readHosts adds the entries of a hosts(5) file to out: an address, then
// names, # to the end of a line a comment. Lines that do not start with an
// address are skipped, as resolvers skip them.
func readHosts(r io.Reader, out map[string][]netip.Addr) error {
	sc := bufio.NewScanner(r)
	for sc.Scan() {
		line, _, _ := strings.Cut(sc.Text(), "#")
		fields := strings.Fields(line)
		if len(fields) < 2 {
			continue
		}
		ip, err := netip.ParseAddr(fields[0])
		if err != nil {
			continue
		}
		ip = ip.Unmap().WithZone("")
		for _, name := range fields[1:] {
			name = canonicalName(name)
			out[name] = append(out[name], ip)
		}
	}
	return sc.Err()
}
