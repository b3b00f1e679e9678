package egress_test

import (
	"context"
	"io"
	"net"
	"net/http"
	"net/netip"
	"os"
	"path/filepath"
	"strings"
	"sync"

	. "github.com/onsi/ginkgo/v2"
	. "github.com/onsi/gomega"

	"keygate/adapters/egress"
	"keygate/adapters/egress/egresstest"
)

// outboundProxy is an operator's outbound proxy that records the targets it
// is asked for (the CONNECT authority, or the host of an absolute-form
// request) and answers each itself, as a proxy that resolved the name would.
type outboundProxy struct {
	*server
	mu    sync.Mutex
	asked []string
}

func newOutboundProxy() *outboundProxy {
	p := &outboundProxy{}
	p.server = newServer(func(w http.ResponseWriter, r *http.Request) {
		p.mu.Lock()
		if r.Method == http.MethodConnect {
			p.asked = append(p.asked, "CONNECT "+r.Host)
		} else {
			p.asked = append(p.asked, r.URL.Host)
		}
		p.mu.Unlock()
		if r.Method == http.MethodConnect {
			w.WriteHeader(http.StatusBadGateway)
			return
		}
		_, _ = io.WriteString(w, "proxied")
	})
	return p
}

func (p *outboundProxy) Asked() []string {
	p.mu.Lock()
	defer p.mu.Unlock()
	return append([]string(nil), p.asked...)
}

// env is a proxy environment naming proxy for http and https.
func (p *outboundProxy) env(k string) string {
	return map[string]string{"HTTP_PROXY": p.URL, "HTTPS_PROXY": p.URL}[k]
}

// get fetches url with c and returns the error, closing any body.
func get(c *http.Client, url string) error {
	resp, err := c.Get(url)
	if resp != nil {
		_ = resp.Body.Close()
	}
	return err
}

// hostsFile writes a hosts(5) file and returns its path.
func hostsFile(content string) string {
	GinkgoHelper()
	path := filepath.Join(GinkgoT().TempDir(), "hosts")
	Expect(os.WriteFile(path, []byte(content), 0o600)).To(Succeed())
	return path
}

var _ = Describe("Hosts read as a resolver reads them, before any outbound proxy is asked", func() {
	ctx := context.Background()

	// Every form a resolver (inet_aton, inet_pton, /etc/hosts) reads as an
	// address that is not public. The host is as it stands in a URL.
	DescribeTable("refuses an IP literal in any form, and a name with a fixed address, by the address it means",
		func(host, means, reason string) {
			proxy := newOutboundProxy()
			for _, view := range []struct {
				name   string
				client *http.Client
			}{
				{"the operator's view", newPolicy(egress.Options{Getenv: proxy.env}).HTTPClient()},
				{"the public-only view", &http.Client{Transport: newPolicy(egress.Options{Getenv: proxy.env}).Public().Transport()}},
			} {
				for _, scheme := range []string{"http", "https"} {
					err := get(view.client, scheme+"://"+host+":8080/latest/meta-data/")
					Expect(err).To(MatchError(egress.ErrRefused), "%s, %s", view.name, scheme)
					Expect(err.Error()).To(ContainSubstring(reason), "%s, %s", view.name, scheme)
					if means != "" {
						Expect(err.Error()).To(ContainSubstring("("+means+")"), "names the address it means")
					}
				}
			}
			Expect(proxy.Asked()).To(BeEmpty(), "neither the absolute-form request nor the CONNECT reached the proxy")
			expectRefused(newPolicy(egress.Options{}).CheckURL(ctx, "http://"+host+":8080/v1"), ":8080", reason)
		},
		Entry("decimal", "2130706433", "127.0.0.1", "loopback"),
		Entry("hexadecimal", "0x7f000001", "127.0.0.1", "loopback"),
		Entry("hexadecimal, upper case", "0X7F000001", "127.0.0.1", "loopback"),
		Entry("octal", "017700000001", "127.0.0.1", "loopback"),
		Entry("two parts", "127.1", "127.0.0.1", "loopback"),
		Entry("three parts", "127.0.1", "127.0.0.1", "loopback"),
		Entry("an octal part", "0177.0.0.1", "127.0.0.1", "loopback"),
		Entry("hexadecimal parts", "0x7f.0x0.0x0.0x1", "127.0.0.1", "loopback"),
		Entry("mixed bases", "0x7f.0.1", "127.0.0.1", "loopback"),
		Entry("a trailing dot", "127.0.0.1.", "127.0.0.1", "loopback"),
		Entry("fullwidth digits, which IDNA turns into 127.0.0.1", "１２７.０.０.１", "", "loopback"),
		Entry("zero", "0", "0.0.0.0", "unspecified"),
		Entry("a bare 0x", "0x", "0.0.0.0", "unspecified"),
		Entry("the metadata address in decimal", "2852039166", "169.254.169.254", "link-local"),
		Entry("the metadata address in hexadecimal", "0xa9fea9fe", "169.254.169.254", "link-local"),
		Entry("the metadata address in three parts", "169.254.43518", "169.254.169.254", "link-local"),
		Entry("a private address in two parts", "10.1", "10.0.0.1", "private"),
		Entry("leading zeros, octal to inet_aton (87.0.0.1) but decimal to other readers", "0127.0.0.1", "127.0.0.1", "loopback"),
		Entry("leading zeros, 8.0.0.1 to inet_aton, 10.0.0.1 to others", "010.0.0.1", "10.0.0.1", "private"),
		Entry("IPv4-mapped IPv6 in hex", "[::ffff:7f00:1]", "127.0.0.1", "loopback"),
		Entry("IPv6 loopback with a zone", "[::1%25lo]", "::1", "loopback"),
		Entry("IPv4-compatible IPv6", "[::127.0.0.1]", "::7f00:1", "special-purpose"),
		Entry("localhost4", "localhost4", "127.0.0.1", "loopback"),
		Entry("localhost4.localdomain4", "localhost4.localdomain4", "127.0.0.1", "loopback"),
		Entry("localhost6", "localhost6", "::1", "loopback"),
		Entry("localhost6.localdomain6", "localhost6.localdomain6", "::1", "loopback"),
		Entry("ip6-localhost", "ip6-localhost", "::1", "loopback"),
		Entry("ip6-loopback, upper case with a trailing dot", "IP6-LOOPBACK.", "::1", "loopback"),
		Entry("ip6-allnodes", "ip6-allnodes", "ff02::1", "multicast"),
		Entry("localhost.localdomain", "localhost.localdomain", "127.0.0.1", "loopback"),
		Entry("a name under .localhost", "metadata.localhost", "127.0.0.1", "loopback"),
	)

	DescribeTable("refuses a host no resolver reads the same way: a number that is no IPv4 address, a colon that is no IPv6 address",
		func(hostport string) {
			p := newPolicy(egress.Options{Laptop: true, Allow: []string{"1.0.0.0/8", "127.0.0.0/8"}})
			for _, check := range []func(context.Context, string) error{p.CheckProxied, p.Public().CheckProxied} {
				err := check(ctx, hostport)
				refused := refusal(err, hostport, "neither an IP address nor a host name")
				Expect(refused.Invalid).To(BeTrue())
				Expect(err.Error()).NotTo(ContainSubstring("KEYGATE_EGRESS_ALLOW"), "no setting opens it")
			}
			_, err := p.DialContext(ctx, "tcp", hostport)
			Expect(err).To(MatchError(egress.ErrRefused), "refused before any DNS query")
		},
		Entry("five parts", "1.2.3.4.5:80"),
		Entry("a part too large for its place", "256.0.0.1:80"),
		Entry("a last part too large", "127.16777216:80"),
		Entry("more than 32 bits", "4294967296:80"),
		Entry("an octal part with an 8", "127.0.0.08:80"),
		Entry("a hex part with a g", "0x7g.1:80"),
		Entry("an empty part", "127..1:80"),
		Entry("IPv4-mapped IPv6 with a short IPv4", "[::ffff:127.1]:80"),
		Entry("a space", "127.1 x:80"),
	)

	It("judges a public address in another form as that address, and leaves names to the proxy", func() {
		proxy := newOutboundProxy()
		c := newPolicy(egress.Options{Getenv: proxy.env}).HTTPClient()
		for _, url := range []string{"http://134744072/", "http://8.8.2056/", "http://docs.example.com/", "http://0x7f.example/", "http://1e100.net/"} {
			Expect(get(c, url)).To(Succeed(), url)
		}
		Expect(proxy.Asked()).To(Equal([]string{"134744072", "8.8.2056", "docs.example.com", "0x7f.example", "1e100.net"}))
	})

	It("knows the names of this machine's hosts file by their addresses, which only the allow-list opens", func() {
		hosts := hostsFile("# a comment\n10.9.8.7  build-box build-box.corp.test # the CI machine\n\nnot-an-address name\n93.184.215.14 mirror.test\n")
		p := newPolicy(egress.Options{HostsFile: hosts})
		expectRefused(p.CheckProxied(ctx, "build-box:8080"), "build-box:8080", "private")
		expectRefused(p.CheckProxied(ctx, "BUILD-BOX.corp.test.:8080"), "BUILD-BOX.corp.test.:8080", "(10.9.8.7)")
		expectRefused(p.CheckURL(ctx, "http://build-box:8080/v1"), "build-box:8080", "private")
		Expect(p.CheckProxied(ctx, "mirror.test:443")).To(Succeed())
		Expect(p.CheckProxied(ctx, "name:443")).To(Succeed(), "a line without an address names nothing")

		allowed := newPolicy(egress.Options{HostsFile: hosts, Allow: []string{"build-box"}})
		Expect(allowed.CheckProxied(ctx, "build-box:8080")).To(Succeed())
		Expect(allowed.Public().CheckProxied(ctx, "build-box:8080")).To(MatchError(egress.ErrRefused), "never for a model's fetch")

		Expect(newPolicy(egress.Options{HostsFile: filepath.Join(GinkgoT().TempDir(), "none")}).CheckProxied(ctx, "build-box:8080")).
			To(Succeed(), "a missing hosts file names nothing")
	})

	It("resolves a name a model chose before the proxy is asked, and refuses it when any answer is not public", func() {
		proxy := newOutboundProxy()
		dns := egresstest.Resolver(func(name string) []netip.Addr {
			switch name {
			case "loopback.attacker.test":
				return []netip.Addr{netip.MustParseAddr("127.0.0.1")}
			case "split.attacker.test":
				return []netip.Addr{netip.MustParseAddr("93.184.215.14"), netip.MustParseAddr("10.0.0.7")}
			case "docs.example.test":
				return []netip.Addr{netip.MustParseAddr("93.184.215.14")}
			}
			return nil
		})
		p := newPolicy(egress.Options{Getenv: proxy.env, Resolver: dns})
		fetch := &http.Client{Transport: p.Public().Transport()}
		for _, url := range []string{"http://loopback.attacker.test:8080/", "https://loopback.attacker.test/", "http://split.attacker.test/"} {
			err := get(fetch, url)
			Expect(err).To(MatchError(egress.ErrRefused), url)
			Expect(err.Error()).To(Or(ContainSubstring("(127.0.0.1)"), ContainSubstring("(10.0.0.7)")))
		}
		Expect(proxy.Asked()).To(BeEmpty())

		Expect(get(fetch, "http://docs.example.test/")).To(Succeed())
		Expect(get(fetch, "http://only-the-proxy-knows.test/")).To(Succeed(), "a name Keygate cannot resolve is the proxy's")
		Expect(proxy.Asked()).To(Equal([]string{"docs.example.test", "only-the-proxy-knows.test"}))

		By("while a name an administrator configured is the proxy's to resolve, as documented")
		Expect(p.CheckProxied(ctx, "loopback.attacker.test:443")).To(Succeed())
		expectRefused(p.CheckURL(ctx, "https://loopback.attacker.test/v1"), "loopback.attacker.test:443", "loopback")
	})

	It("reads the same host the same way whichever path it takes, without asking DNS for a literal", func() {
		var queries []string
		var mu sync.Mutex
		dns := egresstest.Resolver(func(name string) []netip.Addr {
			mu.Lock()
			defer mu.Unlock()
			queries = append(queries, name)
			return nil
		})
		p := newPolicy(egress.Options{Resolver: dns})
		for _, host := range []string{"2130706433", "127.1", "0x7f000001", "ip6-localhost", "localhost4"} {
			dest := net.JoinHostPort(host, "9")
			_, err := p.DialContext(ctx, "tcp", dest)
			expectRefused(err, dest, "loopback")
			expectRefused(p.Public().CheckProxied(ctx, dest), dest, "loopback")
		}
		mu.Lock()
		defer mu.Unlock()
		Expect(strings.Join(queries, ",")).To(BeEmpty())
	})
})
