package upstream_test

import (
	"context"
	"net"
	"net/http"
	"net/http/httptest"
	"sync/atomic"

	. "github.com/onsi/ginkgo/v2"
	. "github.com/onsi/gomega"

	"keygate/adapters/egress"
	"keygate/adapters/egress/egresstest"
	"keygate/adapters/upstream"
	"keygate/adapters/upstream/upstreamtest"
)

var _ = Describe("Forwarder under the outbound policy", func() {
	var (
		fake    *upstreamtest.FakeCursor
		got     <-chan seen
		private *httptest.Server
		conns   atomic.Int32
	)

	BeforeEach(func() {
		fake, got = newFake(teapot)
		conns.Store(0)
		private = httptest.NewUnstartedServer(http.HandlerFunc(func(http.ResponseWriter, *http.Request) {}))
		private.Config.ConnState = func(_ net.Conn, st http.ConnState) {
			if st == http.StateNew {
				conns.Add(1)
			}
		}
		private.Start()
		DeferCleanup(private.Close)
	})

	// guarded is the forwarder as the composition root builds it: dials and
	// proxied targets decided by p, Cursor's by its named view.
	guarded := func(p *egress.Policy, proxy string) *upstream.Forwarder {
		return forwarderFor(fake, upstream.Options{Proxy: proxy, Dial: p.Named().DialContext, CheckProxied: p.Named().CheckProxied,
			TunnelDial: p.DialContext, TunnelCheckProxied: p.CheckProxied})
	}
	policy := func(o egress.Options) *egress.Policy {
		o.Getenv = func(string) string { return "" }
		if o.Resolver == nil {
			o.Resolver = egresstest.Static(nil) // no spec asks real DNS
		}
		p, err := egress.New(context.Background(), o)
		Expect(err).NotTo(HaveOccurred())
		return p
	}

	It("refuses a tunnel to a loopback, metadata or private address in company mode, and connects nothing", func() {
		fwd := guarded(policy(egress.Options{}), upstream.ProxyDirect)
		for _, addr := range []string{private.Listener.Addr().String(), "169.254.169.254:80", "10.0.0.7:5432", "[::ffff:127.0.0.1]:5432"} {
			_, err := fwd.DialTunnel(context.Background(), addr)
			Expect(err).To(MatchError(egress.ErrRefused), addr)
		}
		Expect(conns.Load()).To(BeZero())
	})

	It("refuses a tunnel to Keygate's own listener on a laptop, where loopback is otherwise open", func() {
		p := policy(egress.Options{Laptop: true})
		fwd := guarded(p, upstream.ProxyDirect)
		conn, err := fwd.DialTunnel(context.Background(), private.Listener.Addr().String())
		Expect(err).NotTo(HaveOccurred(), "a developer's own server")
		_ = conn.Close()
		Eventually(conns.Load).Should(BeNumerically("==", 1))
		p.Listening(private.Listener.Addr())
		_, err = fwd.DialTunnel(context.Background(), private.Listener.Addr().String())
		Expect(err).To(MatchError(ContainSubstring("Keygate's own listener")))
		Consistently(conns.Load).Should(BeNumerically("==", 1))
	})

	It("does not ask the outbound proxy for a refused target, and asks it for names it resolves itself", func() {
		outbound := upstreamtest.NewOutboundProxy(upstreamtest.Dialer(map[string]string{"tunnel.example:443": fake.Addr}))
		DeferCleanup(outbound.Close)
		fwd := guarded(policy(egress.Options{OutboundProxy: outbound.URL}), outbound.URL)
		for _, addr := range []string{"169.254.169.254:80", "10.0.0.7:5432", "localhost:7878"} {
			_, err := fwd.DialTunnel(context.Background(), addr)
			Expect(err).To(MatchError(egress.ErrRefused), addr)
		}
		Expect(outbound.Connects()).To(BeEmpty())
		conn, err := fwd.DialTunnel(context.Background(), "tunnel.example:443")
		Expect(err).NotTo(HaveOccurred(), "the outbound proxy on loopback may be dialled")
		_ = conn.Close()
		Expect(outbound.Connects()).To(Equal([]string{"tunnel.example:443"}))
	})

	It("checks a pass-through target before handing it to the outbound proxy", func() {
		outbound := upstreamtest.NewOutboundProxy(upstreamtest.Dialer(map[string]string{"api2.cursor.sh:443": fake.Addr}))
		DeferCleanup(outbound.Close)
		serve := func(p *egress.Policy) int {
			w := httptest.NewRecorder()
			guarded(p, outbound.URL).ServeHTTP(w, httptest.NewRequest(http.MethodGet, "http://keygate/aiserver.v1.AiService/X", nil))
			return w.Code
		}
		Expect(serve(policy(egress.Options{OutboundProxy: outbound.URL}))).To(Equal(http.StatusTeapot))
		Expect(outbound.Connects()).To(Equal([]string{"api2.cursor.sh:443"}))
		// A name the policy refuses (here by declaring it one of Keygate's
		// own addresses) is never asked of the proxy.
		Expect(serve(policy(egress.Options{OutboundProxy: outbound.URL, Own: []string{"api2.cursor.sh:443"}}))).To(Equal(http.StatusBadGateway))
		Expect(outbound.Connects()).To(HaveLen(1))
	})

	It("guards the pass-through too: a Cursor host that resolves to loopback is refused in company mode", func() {
		_, port, _ := net.SplitHostPort(fake.Addr)
		serve := func(o egress.Options) int {
			o.Resolver = egresstest.Static(map[string]string{"api2.cursor.sh": "127.0.0.1"})
			p := policy(o)
			// The name stays api2.cursor.sh (resolved by the policy's
			// dialer); only the port moves to the fake's.
			dial := func(ctx context.Context, network, _ string) (net.Conn, error) {
				return p.DialContext(ctx, network, net.JoinHostPort("api2.cursor.sh", port))
			}
			fwd := forwarderFor(fake, upstream.Options{Proxy: upstream.ProxyDirect, Dial: dial, CheckProxied: p.CheckProxied})
			w := httptest.NewRecorder()
			fwd.ServeHTTP(w, httptest.NewRequest(http.MethodGet, "http://keygate/aiserver.v1.AiService/X", nil))
			return w.Code
		}
		Expect(serve(egress.Options{})).To(Equal(http.StatusBadGateway))
		Expect(got).NotTo(Receive())
		Expect(serve(egress.Options{Laptop: true})).To(Equal(http.StatusTeapot), "the same set-up reaches the fake where loopback is open")
		Expect(got).To(Receive())
	})

	It("does not let the allow-list entry of a self-hosted model open a Cursor host that resolves to it, while tunnels keep it", func() {
		_, port, _ := net.SplitHostPort(fake.Addr)
		p := policy(egress.Options{Allow: []string{"127.0.0.1:" + port},
			Resolver: egresstest.Static(map[string]string{"api2.cursor.sh": "127.0.0.1"})})
		// The name stays api2.cursor.sh (resolved by the policy's dialer);
		// only the port moves to the fake's, as guarded wires the views.
		onPort := func(dial func(context.Context, string, string) (net.Conn, error)) func(context.Context, string, string) (net.Conn, error) {
			return func(ctx context.Context, network, _ string) (net.Conn, error) {
				return dial(ctx, network, net.JoinHostPort("api2.cursor.sh", port))
			}
		}
		fwd := forwarderFor(fake, upstream.Options{Proxy: upstream.ProxyDirect,
			Dial: onPort(p.Named().DialContext), CheckProxied: p.Named().CheckProxied,
			TunnelDial: p.DialContext, TunnelCheckProxied: p.CheckProxied})
		w := httptest.NewRecorder()
		fwd.ServeHTTP(w, httptest.NewRequest(http.MethodGet, "http://keygate/aiserver.v1.AiService/X", nil))
		Expect(w.Code).To(Equal(http.StatusBadGateway))
		Expect(got).NotTo(Receive())

		conn, err := fwd.DialTunnel(context.Background(), "127.0.0.1:"+port)
		Expect(err).NotTo(HaveOccurred(), "an administrator's own destination, by address")
		_ = conn.Close()
	})
})
