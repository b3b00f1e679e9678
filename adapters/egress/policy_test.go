package egress_test

import (
	"context"
	"io"
	"net"
	"net/http"
	"net/netip"
	"strconv"
	"sync/atomic"

	. "github.com/onsi/ginkgo/v2"
	. "github.com/onsi/gomega"

	"keygate/adapters/egress"
	"keygate/adapters/egress/egresstest"
)

var _ = Describe("The egress policy", func() {
	ctx := context.Background()

	Describe("in company mode, without an allow-list", func() {
		var p *egress.Policy
		BeforeEach(func() { p = newPolicy(egress.Options{}) })

		DescribeTable("refuses every special-purpose address before a socket connects",
			func(dest, reason string) {
				conn, err := p.DialContext(ctx, "tcp", dest)
				if conn != nil {
					_ = conn.Close()
				}
				refused := refusal(err, dest, reason)
				Expect(refused.Own).To(BeFalse())
				Expect(refused.Error()).To(ContainSubstring("KEYGATE_EGRESS_ALLOW=" + dest))
			},
			Entry("IPv4 loopback", "127.0.0.1:9", "loopback"),
			Entry("the rest of 127/8", "127.1.2.3:9", "loopback"),
			Entry("IPv6 loopback", "[::1]:9", "loopback"),
			Entry("IPv4-mapped IPv6 loopback", "[::ffff:127.0.0.1]:9", "loopback"),
			Entry("the cloud metadata service", "169.254.169.254:80", "link-local"),
			Entry("the cloud metadata service, IPv4-mapped", "[::ffff:169.254.169.254]:80", "link-local"),
			Entry("IPv6 link-local", "[fe80::1]:80", "link-local"),
			Entry("RFC 1918 10/8", "10.0.0.7:443", "private"),
			Entry("RFC 1918 172.16/12", "172.16.0.1:443", "private"),
			Entry("RFC 1918 192.168/16", "192.168.1.1:443", "private"),
			Entry("RFC 1918, IPv4-mapped", "[::ffff:10.0.0.7]:443", "private"),
			Entry("IPv6 unique local fc00::/7", "[fd00::7]:443", "private"),
			Entry("carrier-grade NAT 100.64/10", "100.64.0.1:443", "shared"),
			Entry("IPv4 multicast", "224.0.0.1:443", "multicast"),
			Entry("IPv6 multicast", "[ff02::1]:443", "multicast"),
			Entry("the IPv4 unspecified address", "0.0.0.0:443", "unspecified"),
			Entry("the IPv6 unspecified address", "[::]:443", "unspecified"),
			Entry("documentation TEST-NET-1", "192.0.2.1:443", "special-purpose"),
			Entry("benchmarking 198.18/15", "198.18.0.1:443", "special-purpose"),
			Entry("reserved 240/4", "240.0.0.1:443", "special-purpose"),
			Entry("loopback behind NAT64", "[64:ff9b::7f00:1]:443", "special-purpose"),
			Entry("loopback behind 6to4", "[2002:7f00:1::]:443", "special-purpose"),
		)

		It("never connects to a refused server: it accepts no connection", func() {
			srv := newServer(nil)
			for _, dest := range []string{"127.0.0.1:" + srv.port(), "[::ffff:127.0.0.1]:" + srv.port(), "localhost:" + srv.port()} {
				_, err := p.DialContext(ctx, "tcp", dest)
				expectRefused(err, dest, "loopback")
			}
			resp, err := p.HTTPClient().Get(srv.URL + "/v1/models")
			if resp != nil {
				_ = resp.Body.Close()
			}
			Expect(err).To(MatchError(egress.ErrRefused))
			Expect(srv.accepted.Load()).To(BeZero())
		})

		It("refuses a name that resolves to a private address, naming both", func() {
			p = newPolicy(egress.Options{Resolver: egresstest.Static(map[string]string{"models.corp.test": "10.0.0.7"})})
			_, err := p.DialContext(ctx, "tcp", "models.corp.test:8000")
			refused := refusal(err, "models.corp.test:8000", "private")
			Expect(refused.Error()).To(ContainSubstring("(10.0.0.7)"))
			Expect(refused.Addr).To(Equal(netip.MustParseAddrPort("10.0.0.7:8000")))
		})

		It("decides on the address actually connected, so a name that rebinds between a check and the dial is still refused", func() {
			// Two servers on one port: 127.0.0.2 is allow-listed (standing
			// for a public address), 127.0.0.1 is not.
			refused := newServer(nil)
			ln, err := net.Listen("tcp", "127.0.0.2:"+refused.port())
			Expect(err).NotTo(HaveOccurred())
			allowed := &http.Server{Handler: http.HandlerFunc(func(w http.ResponseWriter, _ *http.Request) { _, _ = io.WriteString(w, "allowed") })}
			go func() { _ = allowed.Serve(ln) }()
			DeferCleanup(allowed.Close)

			// The first lookup (A and AAAA) answers the allowed address,
			// every later one the refused address.
			var queries atomic.Int32
			dns := egresstest.Resolver(func(name string) []netip.Addr {
				if name != "rebind.test" {
					return nil
				}
				if queries.Add(1) <= 2 {
					return []netip.Addr{netip.MustParseAddr("127.0.0.2")}
				}
				return []netip.Addr{netip.MustParseAddr("127.0.0.1")}
			})
			p = newPolicy(egress.Options{Resolver: dns, Allow: []string{"127.0.0.2"}})
			tr := p.Transport()
			tr.DisableKeepAlives = true
			c := &http.Client{Transport: tr}
			url := "http://rebind.test:" + refused.port() + "/v1/models"

			resp, err := c.Get(url)
			Expect(err).NotTo(HaveOccurred(), "connected where the first answer pointed")
			body, _ := io.ReadAll(resp.Body)
			_ = resp.Body.Close()
			Expect(string(body)).To(Equal("allowed"))

			resp, err = c.Get(url)
			if resp != nil {
				_ = resp.Body.Close()
			}
			expectRefused(err, "rebind.test:"+refused.port(), "loopback")
			Expect(refused.accepted.Load()).To(BeZero())
		})

		It("judges an IPv4-mapped IPv6 address as the IPv4 address it is", func() {
			Expect(p.CheckURL(ctx, "https://[::ffff:8.8.8.8]/v1")).To(Succeed(), "a public address in either form")
			p = newPolicy(egress.Options{Own: []string{"192.0.2.2:7878"}, Allow: []string{"192.0.2.0/24"}})
			for _, dest := range []string{"192.0.2.2:7878", "[::ffff:192.0.2.2]:7878"} {
				Expect(refusal(p.CheckProxied(ctx, dest), dest, "own listener").Own).To(BeTrue())
			}
			Expect(p.CheckProxied(ctx, "[::ffff:192.0.2.3]:7878")).To(Succeed(), "allow-listed")
		})

		It("allows only TCP", func() {
			_, err := p.DialContext(ctx, "udp", "8.8.8.8:53")
			Expect(err).To(MatchError(ContainSubstring("only TCP")))
		})
	})

	Describe("CheckURL, for a provider base URL an administrator saves", func() {
		It("applies the same rules to the URL's host and port", func() {
			p := newPolicy(egress.Options{Resolver: egresstest.Static(map[string]string{
				"models.corp.test": "10.0.0.7", "api.public.test": "93.184.215.14"})})
			expectRefused(p.CheckURL(ctx, "http://169.254.169.254/latest/meta-data/"), "169.254.169.254:80", "link-local")
			expectRefused(p.CheckURL(ctx, "http://[::ffff:169.254.169.254]/latest"), "[::ffff:169.254.169.254]:80", "link-local")
			expectRefused(p.CheckURL(ctx, "https://models.corp.test/v1"), "models.corp.test:443", "private")
			expectRefused(p.CheckURL(ctx, "http://localhost:11434/v1"), "localhost:11434", "loopback")
			expectRefused(p.CheckURL(ctx, "http://app.localhost:11434/v1"), "app.localhost:11434", "loopback")
			Expect(p.CheckURL(ctx, "https://api.public.test/v1")).To(Succeed())
			Expect(p.CheckURL(ctx, "https://8.8.8.8/v1")).To(Succeed())
		})

		It("passes a name it cannot resolve: the dial decides, maybe through the outbound proxy", func() {
			p := newPolicy(egress.Options{Resolver: egresstest.Static(nil)})
			Expect(p.CheckURL(ctx, "https://only-the-proxy-knows.test/v1")).To(Succeed())
		})

		It("refuses what is not an http(s) URL, without echoing the URL", func() {
			p := newPolicy(egress.Options{})
			err := p.CheckURL(ctx, "ftp://models.corp/?key=sk-secret-0123")
			Expect(err).To(MatchError(ContainSubstring("http:// or https://")))
			Expect(err.Error()).NotTo(ContainSubstring("sk-secret"))
			err = p.CheckURL(ctx, "http://10.0.0.7/v1?key=sk-secret-0123")
			Expect(err).To(MatchError(egress.ErrRefused))
			Expect(err.Error()).NotTo(ContainSubstring("sk-secret"))
			Expect(p.CheckURL(ctx, "http:///v1")).To(MatchError(ContainSubstring("no host")))
			Expect(p.CheckURL(ctx, "http://%zz")).To(MatchError(ContainSubstring("not a valid URL")))
		})
	})

	Describe("the allow-list", func() {
		It("opens a CIDR range", func() {
			srv := newServer(nil)
			p := newPolicy(egress.Options{Allow: []string{"127.0.0.0/8"}})
			resp, err := p.HTTPClient().Get(srv.URL)
			Expect(err).NotTo(HaveOccurred())
			_ = resp.Body.Close()
			Expect(srv.Requests()).To(HaveLen(1))
			_, err = p.DialContext(ctx, "tcp", "10.0.0.7:443")
			expectRefused(err, "10.0.0.7:443", "private")
		})

		It("opens an IP on one port only", func() {
			srv := newServer(nil)
			p := newPolicy(egress.Options{Allow: []string{"127.0.0.1:" + srv.port()}})
			conn, err := p.DialContext(ctx, "tcp", "127.0.0.1:"+srv.port())
			Expect(err).NotTo(HaveOccurred())
			_ = conn.Close()
			_, err = p.DialContext(ctx, "tcp", "127.0.0.1:9")
			expectRefused(err, "127.0.0.1:9", "loopback")
		})

		It("opens a host name by the name asked for, not by the address it resolves to", func() {
			srv := newServer(nil)
			dns := egresstest.Static(map[string]string{"models.corp.test": "127.0.0.1", "other.corp.test": "127.0.0.1"})
			p := newPolicy(egress.Options{Allow: []string{"models.corp.test"}, Resolver: dns})
			resp, err := p.HTTPClient().Get("http://models.corp.test:" + srv.port() + "/v1/models")
			Expect(err).NotTo(HaveOccurred())
			_ = resp.Body.Close()
			Expect(srv.Requests()).To(HaveLen(1))
			Expect(p.CheckURL(ctx, "http://models.corp.test:"+srv.port())).To(Succeed())

			_, err = p.DialContext(ctx, "tcp", "other.corp.test:"+srv.port())
			expectRefused(err, "other.corp.test:"+srv.port(), "loopback")
			_, err = p.DialContext(ctx, "tcp", "127.0.0.1:"+srv.port())
			expectRefused(err, "127.0.0.1:"+srv.port(), "loopback")
			Expect(srv.Requests()).To(HaveLen(1))
		})

		It("is validated when the policy is built", func() {
			_, err := egress.New(ctx, egress.Options{Allow: []string{"10.0.0.0/8", "http://x"}, Getenv: emptyEnv})
			Expect(err).To(MatchError(ContainSubstring(`"http://x"`)))
		})
	})

	Describe("Keygate's own listeners and database", func() {
		It("refuses a listener bound to 0.0.0.0 through loopback and through a local interface address, even allow-listed", func() {
			ln, err := net.Listen("tcp", "0.0.0.0:0")
			Expect(err).NotTo(HaveOccurred())
			DeferCleanup(ln.Close)
			var accepted atomic.Int32
			go func() {
				for {
					c, err := ln.Accept()
					if err != nil {
						return
					}
					accepted.Add(1)
					_ = c.Close()
				}
			}()
			port := ln.Addr().(*net.TCPAddr).Port
			iface := localInterfaceAddr()
			for _, laptop := range []bool{false, true} {
				p := newPolicy(egress.Options{Laptop: laptop, Allow: []string{"127.0.0.0/8", iface.String(), "localhost"}})
				p.Listening(ln.Addr())
				for _, ip := range []string{"127.0.0.1", "127.0.0.2", "::ffff:127.0.0.1", "::1", iface.String()} {
					dest := net.JoinHostPort(ip, strconv.Itoa(port))
					_, err := p.DialContext(ctx, "tcp", dest)
					Expect(refusal(err, dest, "Keygate's own listener").Own).To(BeTrue())
					Expect(err.Error()).To(ContainSubstring("whatever KEYGATE_EGRESS_ALLOW says"))
				}
				_, err = p.DialContext(ctx, "tcp", "localhost:"+strconv.Itoa(port))
				expectRefused(err, "localhost:"+strconv.Itoa(port), "Keygate's own listener")
			}
			Expect(accepted.Load()).To(BeZero())
		})

		It("refuses a listener given as configured, with an empty host meaning every address", func() {
			srv := newServer(nil)
			iface := localInterfaceAddr()
			for _, own := range []string{":" + srv.port(), "0.0.0.0:" + srv.port(), "[::]:" + srv.port(), "localhost:" + srv.port()} {
				p := newPolicy(egress.Options{Laptop: true, Own: []string{own}, Allow: []string{iface.String()}})
				_, err := p.DialContext(ctx, "tcp", "127.0.0.1:"+srv.port())
				expectRefused(err, "127.0.0.1:"+srv.port(), "own listener")
				Expect(p.CheckURL(ctx, "http://"+net.JoinHostPort(iface.String(), srv.port()))).To(MatchError(egress.ErrRefused), own)
			}
			Expect(srv.accepted.Load()).To(BeZero())
		})

		It("refuses the database's port, by address and by name, even allow-listed and on a laptop", func() {
			db := newServer(nil) // stands in for PostgreSQL
			p := newPolicy(egress.Options{Laptop: true, Own: []string{"127.0.0.1:" + db.port(), "db.internal.test:5432"},
				Allow: []string{"127.0.0.1:" + db.port(), "db.internal.test"}, Resolver: egresstest.Static(nil)})
			for _, dest := range []string{"127.0.0.1:" + db.port(), "localhost:" + db.port(), "[::ffff:127.0.0.1]:" + db.port()} {
				_, err := p.DialContext(ctx, "tcp", dest)
				Expect(refusal(err, dest, "database").Own).To(BeTrue())
			}
			_, err := p.DialContext(ctx, "tcp", "db.internal.test:5432")
			expectRefused(err, "db.internal.test:5432", "database")
			expectRefused(p.CheckProxied(ctx, "db.internal.test:5432"), "db.internal.test:5432", "database")
			Expect(db.accepted.Load()).To(BeZero())
		})
	})

	Describe("on a laptop (local sign-in)", func() {
		It("reaches a developer's model server on localhost and private addresses, never link-local or unspecified", func() {
			srv := newServer(nil)
			p := newPolicy(egress.Options{Laptop: true})
			resp, err := p.HTTPClient().Get("http://localhost:" + srv.port() + "/api/tags")
			Expect(err).NotTo(HaveOccurred())
			_ = resp.Body.Close()
			Expect(srv.Requests()).To(HaveLen(1))
			Expect(p.CheckURL(ctx, "http://192.168.1.20:11434")).To(Succeed())
			Expect(p.CheckURL(ctx, "http://100.100.1.2:11434")).To(Succeed(), "a tailnet address")
			Expect(p.CheckURL(ctx, "http://[fd00::7]:11434")).To(Succeed())
			expectRefused(p.CheckURL(ctx, "http://169.254.169.254/latest"), "169.254.169.254:80", "link-local")
			_, err = p.DialContext(ctx, "tcp", "0.0.0.0:"+srv.port())
			expectRefused(err, "0.0.0.0:"+srv.port(), "unspecified")
		})

		It("still refuses Keygate's own ports", func() {
			console := newServer(nil)
			p := newPolicy(egress.Options{Laptop: true})
			p.Listening(console.Listener.Addr())
			_, err := p.DialContext(ctx, "tcp", "localhost:"+console.port())
			expectRefused(err, "localhost:"+console.port(), "own listener")
			Expect(console.accepted.Load()).To(BeZero())
		})
	})

	Describe("the outbound proxy", func() {
		It("may be dialled on a refused address, and only it", func() {
			proxy := newServer(nil)
			for _, c := range []struct {
				o    egress.Options
				host string
			}{
				{egress.Options{OutboundProxy: "http://127.0.0.1:" + proxy.port()}, "127.0.0.1"},
				{egress.Options{Getenv: func(k string) string {
					return map[string]string{"HTTPS_PROXY": "127.0.0.1:" + proxy.port()}[k]
				}}, "127.0.0.1"},
				{egress.Options{OutboundProxy: "direct", Getenv: func(k string) string {
					return map[string]string{"http_proxy": "http://localhost:" + proxy.port()}[k]
				}}, "localhost"},
			} {
				p := newPolicy(c.o)
				conn, err := p.DialContext(ctx, "tcp", net.JoinHostPort(c.host, proxy.port()))
				Expect(err).NotTo(HaveOccurred())
				_ = conn.Close()
				_, err = p.DialContext(ctx, "tcp", "127.0.0.1:9")
				expectRefused(err, "127.0.0.1:9", "loopback")
			}
			Eventually(proxy.accepted.Load).Should(BeNumerically("==", 3))
		})

		It("must be a URL when configured, while a malformed environment value is only ignored", func() {
			_, err := egress.New(ctx, egress.Options{OutboundProxy: "http://user:pw@[::1", Getenv: emptyEnv})
			Expect(err).To(MatchError(ContainSubstring("not a URL")))
			Expect(err.Error()).NotTo(ContainSubstring("pw"), "the setting may hold credentials")
			_, err = egress.New(ctx, egress.Options{Getenv: func(k string) string {
				return map[string]string{"HTTPS_PROXY": "http://[::1"}[k]
			}})
			Expect(err).NotTo(HaveOccurred())
		})

		It("is not asked for a refused target; names it resolves itself are its to decide", func() {
			var asked []string
			proxy := newServer(func(w http.ResponseWriter, r *http.Request) {
				asked = append(asked, r.URL.Host)
				_, _ = io.WriteString(w, "proxied")
			})
			p := newPolicy(egress.Options{Getenv: func(k string) string {
				return map[string]string{"HTTP_PROXY": proxy.URL}[k]
			}})
			c := p.HTTPClient()
			for _, target := range []string{"http://169.254.169.254/latest/meta-data/", "http://10.0.0.7:8000/v1", "http://[::ffff:10.0.0.7]/v1"} {
				resp, err := c.Get(target)
				if resp != nil {
					_ = resp.Body.Close()
				}
				Expect(err).To(MatchError(egress.ErrRefused), target)
			}
			expectRefused(p.CheckProxied(ctx, "localhost:7878"), "localhost:7878", "loopback")
			expectRefused(p.CheckProxied(ctx, "api.localhost:443"), "api.localhost:443", "loopback")
			Expect(asked).To(BeEmpty())

			resp, err := c.Get("http://models.example.test/v1")
			Expect(err).NotTo(HaveOccurred())
			body, _ := io.ReadAll(resp.Body)
			_ = resp.Body.Close()
			Expect(string(body)).To(Equal("proxied"))
			Expect(asked).To(Equal([]string{"models.example.test"}))
		})
	})

	Describe("Originated", func() {
		It("knows a connection Keygate dialled by both its ends, until it is closed", func() {
			peers := make(chan string, 1)
			srv := newServer(func(w http.ResponseWriter, r *http.Request) { peers <- r.RemoteAddr })
			p := newPolicy(egress.Options{Laptop: true})
			tr := p.Transport()
			DeferCleanup(tr.CloseIdleConnections)
			resp, err := (&http.Client{Transport: tr}).Get(srv.URL)
			Expect(err).NotTo(HaveOccurred())
			_ = resp.Body.Close()
			var peer string
			Expect(peers).To(Receive(&peer))
			ap := netip.MustParseAddrPort(peer)
			at := netip.MustParseAddrPort(srv.Listener.Addr().String())
			Expect(p.Originated(ap, at)).To(BeTrue(), "the kept-alive connection is open")
			Expect(p.Originated(netip.AddrPortFrom(netip.MustParseAddr("::ffff:"+ap.Addr().String()), ap.Port()), at)).To(BeTrue())
			Expect(p.Originated(ap, netip.AddrPort{})).To(BeTrue(), "a caller that cannot tell its listener asks by the peer alone")

			By("a client whose source port is the one Keygate dials from, connecting to another of Keygate's listeners")
			// Linux gives one local port to connections to different
			// destinations: that client is not Keygate.
			Expect(p.Originated(ap, netip.AddrPortFrom(at.Addr(), at.Port()+1))).To(BeFalse())

			other, err := net.Dial("tcp", srv.Listener.Addr().String())
			Expect(err).NotTo(HaveOccurred())
			Expect(p.Originated(netip.MustParseAddrPort(other.LocalAddr().String()), at)).To(BeFalse(), "not dialled by the policy")
			_ = other.Close()

			tr.CloseIdleConnections()
			Expect(p.Originated(ap, at)).To(BeFalse())
		})

		It("passes half-closes on, as tunnels need", func() {
			ln, err := net.Listen("tcp", "127.0.0.1:0")
			Expect(err).NotTo(HaveOccurred())
			DeferCleanup(ln.Close)
			got := make(chan string, 1)
			go func() {
				c, err := ln.Accept()
				if err != nil {
					return
				}
				b, _ := io.ReadAll(c) // returns at the client's half-close
				_, _ = c.Write([]byte("bye"))
				_ = c.Close()
				got <- string(b)
			}()
			p := newPolicy(egress.Options{Laptop: true})
			c, err := p.DialContext(ctx, "tcp", ln.Addr().String())
			Expect(err).NotTo(HaveOccurred())
			DeferCleanup(c.Close)
			_, _ = c.Write([]byte("hello"))
			cw, ok := c.(interface{ CloseWrite() error })
			Expect(ok).To(BeTrue())
			Expect(cw.CloseWrite()).To(Succeed())
			Eventually(got).Should(Receive(Equal("hello")))
			b, err := io.ReadAll(c)
			Expect(err).NotTo(HaveOccurred())
			Expect(string(b)).To(Equal("bye"))
		})
	})
})
