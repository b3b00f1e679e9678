package upstream_test

import (
	"context"
	"crypto/tls"
	"encoding/base64"
	"errors"
	"io"
	"net/http"
	"net/http/httptest"

	. "github.com/onsi/ginkgo/v2"
	. "github.com/onsi/gomega"

	"keygate/adapters/upstream"
	"keygate/adapters/upstream/upstreamtest"
)

var _ = Describe("Forwarder outbound proxy", func() {
	var (
		fake     *upstreamtest.FakeCursor
		got      <-chan seen
		outbound *upstreamtest.OutboundProxy
		env      map[string]string
	)

	BeforeEach(func() {
		fake, got = newFake(teapot)
		// Only the outbound proxy knows where the Cursor hosts are; the
		// forwarder's own dialer reaches loopback addresses only.
		outbound = upstreamtest.NewOutboundProxy(upstreamtest.Dialer(map[string]string{
			"api2.cursor.sh:443": fake.Addr, "tunnel.example:443": fake.Addr,
		}))
		DeferCleanup(outbound.Close)
		env = map[string]string{}
	})

	forwarder := func(proxy string) *upstream.Forwarder {
		return forwarderFor(fake, upstream.Options{
			Proxy: proxy, Dial: upstreamtest.Dialer(nil), Getenv: func(k string) string { return env[k] },
		})
	}

	get := func(fwd *upstream.Forwarder) int {
		w := httptest.NewRecorder()
		fwd.ServeHTTP(w, httptest.NewRequest(http.MethodGet, "http://keygate/aiserver.v1.AiService/X", nil))
		return w.Code
	}

	It("reaches Cursor through the configured proxy, with the proxy's credentials", func() {
		fwd := forwarder("http://corp:s3cret@" + outbound.URL[len("http://"):])
		Expect(get(fwd)).To(Equal(http.StatusTeapot))
		Expect(got).To(Receive())
		Expect(outbound.Connects()).To(Equal([]string{"api2.cursor.sh:443"}))
		Expect(outbound.Auths()).To(Equal([]string{"Basic " + base64.StdEncoding.EncodeToString([]byte("corp:s3cret"))}))
	})

	It("takes the proxy from HTTPS_PROXY when none is configured", func() {
		env["HTTPS_PROXY"] = outbound.URL
		Expect(get(forwarder(""))).To(Equal(http.StatusTeapot))
		Expect(outbound.Connects()).To(ConsistOf("api2.cursor.sh:443"))
	})

	It("prefers the configured proxy over the environment", func() {
		env["HTTPS_PROXY"] = "http://127.0.0.1:1"
		Expect(get(forwarder(outbound.URL))).To(Equal(http.StatusTeapot))
	})

	It("leaves hosts in NO_PROXY alone", func() {
		env["HTTPS_PROXY"] = outbound.URL
		env["NO_PROXY"] = ".cursor.sh"
		Expect(get(forwarder(""))).To(Equal(http.StatusBadGateway), "the forwarder cannot reach Cursor by itself")
		Expect(outbound.Connects()).To(BeEmpty())
	})

	It("ignores the environment when told to go direct", func() {
		env["HTTPS_PROXY"] = outbound.URL
		Expect(get(forwarder(upstream.ProxyDirect))).To(Equal(http.StatusBadGateway))
		Expect(outbound.Connects()).To(BeEmpty())
	})

	Describe("DialTunnel", func() {
		It("opens a tunnel through the proxy for hosts Keygate does not intercept", func() {
			conn, err := forwarder(outbound.URL).DialTunnel(context.Background(), "tunnel.example:443")
			Expect(err).NotTo(HaveOccurred())
			DeferCleanup(conn.Close)
			Expect(outbound.Connects()).To(Equal([]string{"tunnel.example:443"}))
			tc := tls.Client(conn, &tls.Config{ServerName: "api2.cursor.sh", RootCAs: fake.Pool})
			Expect(tc.Handshake()).To(Succeed(), "the bytes reach the far end untouched")
		})

		It("reports a proxy that refuses the CONNECT", func() {
			outbound.Refuse["tunnel.example:443"] = true
			_, err := forwarder(outbound.URL).DialTunnel(context.Background(), "tunnel.example:443")
			var refused *upstream.ProxyRefusedError
			Expect(errors.As(err, &refused)).To(BeTrue())
			Expect(err).To(MatchError(ContainSubstring("403")))
		})

		It("dials directly when no proxy applies", func() {
			plain := httptest.NewServer(http.HandlerFunc(func(w http.ResponseWriter, _ *http.Request) { _, _ = io.WriteString(w, "direct") }))
			DeferCleanup(plain.Close)
			conn, err := forwarder("").DialTunnel(context.Background(), plain.Listener.Addr().String())
			Expect(err).NotTo(HaveOccurred())
			_ = conn.Close()
			Expect(outbound.Connects()).To(BeEmpty())
		})
	})
})
