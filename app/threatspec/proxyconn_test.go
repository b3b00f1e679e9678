package threatspec_test

import (
	"bufio"
	"crypto/tls"
	"errors"
	"io"
	"net"
	"net/http"
	"net/http/httptest"
	"os"
	"strconv"
	"sync/atomic"
	"time"

	. "github.com/onsi/ginkgo/v2"
	. "github.com/onsi/gomega"

	"keygate/adapters/upstream/upstreamtest"
	"keygate/app/config"
)

// rawProxy opens a connection to k's proxy, sends head (a request line and
// headers, without the blank line that ends them) with token as
// Proxy-Authorization, and returns the connection, its reader and the
// proxy's answer.
func rawProxy(k *stack, head, token string) (net.Conn, *bufio.Reader, *http.Response) {
	GinkgoHelper()
	conn, err := net.DialTimeout("tcp", k.Proxy, 5*time.Second)
	Expect(err).NotTo(HaveOccurred())
	DeferCleanup(func() { _ = conn.Close() }) // the spec may have closed it
	_ = conn.SetDeadline(time.Now().Add(20 * time.Second))
	_, err = io.WriteString(conn, head+"Proxy-Authorization: "+basic(token)+"\r\n\r\n")
	Expect(err).NotTo(HaveOccurred())
	br := bufio.NewReader(conn)
	method := http.MethodGet
	if len(head) > 7 && head[:7] == "CONNECT" {
		method = http.MethodConnect
	}
	resp, err := http.ReadResponse(br, &http.Request{Method: method})
	Expect(err).NotTo(HaveOccurred())
	return conn, br, resp
}

// closedByProxy expects the proxy to close conn: a read fails, and not
// because the spec's own deadline passed.
func closedByProxy(conn net.Conn, br *bufio.Reader, within time.Duration) {
	GinkgoHelper()
	Expect(conn.SetReadDeadline(time.Now().Add(within))).To(Succeed())
	for {
		if _, err := br.ReadByte(); err != nil {
			Expect(err).NotTo(MatchError(os.ErrDeadlineExceeded), "the proxy closed the connection")
			return
		}
	}
}

// intercepted opens an intercepted TLS session to api2.cursor.sh with
// token, as Cursor does, and returns the proxy's answer to the CONNECT and,
// after a 200, the session.
func intercepted(k *stack, token string) (*http.Response, *tls.Conn) {
	GinkgoHelper()
	conn, br, resp := rawProxy(k, "CONNECT api2.cursor.sh:443 HTTP/1.1\r\nHost: api2.cursor.sh:443\r\n", token)
	if resp.StatusCode != http.StatusOK {
		return resp, nil
	}
	Expect(br.Buffered()).To(BeZero())
	tc := tls.Client(conn, &tls.Config{RootCAs: k.InstallationCA(), ServerName: "api2.cursor.sh"})
	Expect(tc.Handshake()).To(Succeed())
	return resp, tc
}

var _ = Describe("Threat 18: a member reaches a *.cursor.sh name on another port", func() {
	var (
		k        *stack
		outbound *upstreamtest.OutboundProxy
		internal *httptest.Server
		reached  atomic.Int32
		port     string
	)

	BeforeEach(func() {
		// The self-hosted model an administrator allow-listed for
		// providers, and an outbound proxy that resolves a *.cursor.sh
		// name to it (a DNS answer pointing inward).
		reached.Store(0)
		internal = httptest.NewServer(http.HandlerFunc(func(w http.ResponseWriter, _ *http.Request) {
			reached.Add(1)
			_, _ = io.WriteString(w, `{"data":[{"id":"internal-model"}]}`)
		}))
		DeferCleanup(internal.Close)
		_, port, _ = net.SplitHostPort(internal.Listener.Addr().String())
		outbound = upstreamtest.NewOutboundProxy(upstreamtest.Dialer(map[string]string{
			"models.cursor.sh:" + port: internal.Listener.Addr().String(),
			"models.cursor.sh:80":      internal.Listener.Addr().String(),
			"models.cursor.sh:443":     internal.Listener.Addr().String(),
		}))
		DeferCleanup(outbound.Close)
		k = startKeygate(allowEgress(internal.Listener.Addr().String()), func(c *config.Config) { c.OutboundProxy = outbound.URL })
	})

	// refusedNamed expects a 403 naming target, the connection closed, and
	// nothing asked of the outbound proxy or reached inside.
	refusedNamed := func(conn net.Conn, br *bufio.Reader, resp *http.Response, target string) {
		GinkgoHelper()
		Expect(resp.StatusCode).To(Equal(http.StatusForbidden), target)
		Expect(body(resp)).To(And(ContainSubstring(target), ContainSubstring("443")))
		closedByProxy(conn, br, 5*time.Second)
		Expect(outbound.Connects()).To(BeEmpty(), "nothing was dialled for %s", target)
		Expect(reached.Load()).To(BeZero())
	}

	It("refuses plain HTTP to a *.cursor.sh name, on the model's port and on 80, with the member's own Authorization, before anything is dialled", func() {
		for _, authority := range []string{"models.cursor.sh:" + port, "models.cursor.sh"} {
			conn, br, resp := k.proxyConn("GET http://" + authority + "/v1/models HTTP/1.1\r\nHost: " + authority + "\r\n" +
				"Authorization: Bearer mallory-own-key\r\n")
			target := authority
			if authority == "models.cursor.sh" {
				target += ":80"
			}
			refusedNamed(conn, br, resp, target)
		}
	})

	It("refuses a CONNECT to a *.cursor.sh name on another port than 443, before anything is dialled", func() {
		for _, authority := range []string{"models.cursor.sh:" + port, "api2.cursor.sh:8443", "models.cursor.sh:80"} {
			conn, br, resp := k.connect(authority)
			refusedNamed(conn, br, resp, authority)
		}
	})

	It("still intercepts *.cursor.sh on 443, serving Keygate's own routes", func() {
		resp, tc := intercepted(k, k.memberToken)
		Expect(resp.StatusCode).To(Equal(http.StatusOK))
		answer, err := serverConfig(tc, bufio.NewReader(tc))
		Expect(err).NotTo(HaveOccurred())
		Expect(answer).To(HaveHTTPStatus(http.StatusOK))
		Expect(outbound.Connects()).To(BeEmpty())
	})
})

var _ = Describe("Threat 19: an upgraded connection outlives its revoked token", func() {
	It("cuts a plain-HTTP connection switched to another protocol (101) within seconds of its token's revocation, on both sides", func(ctx SpecContext) {
		// A pass-through host that switches to an echo protocol.
		serverDone := make(chan struct{}, 1)
		echo := httptest.NewServer(http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
			if r.Header.Get("Upgrade") != "echo" {
				http.Error(w, "upgrade to echo", http.StatusUpgradeRequired)
				return
			}
			c, brw, err := http.NewResponseController(w).Hijack()
			if err != nil {
				return
			}
			defer c.Close()
			_, _ = brw.WriteString("HTTP/1.1 101 Switching Protocols\r\nConnection: Upgrade\r\nUpgrade: echo\r\n\r\n")
			_ = brw.Flush()
			_, _ = io.Copy(c, brw)
			serverDone <- struct{}{}
		}))
		DeferCleanup(echo.Close)
		addr := echo.Listener.Addr().String()
		k := startKeygate(allowEgress(addr), func(c *config.Config) { c.ProxyPassthrough = append(c.ProxyPassthrough, addr) })
		id, token := k.newToken(mallory, "upgrading laptop")

		conn, br, resp := rawProxy(k, "GET http://"+addr+"/echo HTTP/1.1\r\nHost: "+addr+"\r\nConnection: Upgrade\r\nUpgrade: echo\r\n", token)
		Expect(resp.StatusCode).To(Equal(http.StatusSwitchingProtocols))
		ping := func() error {
			if _, err := io.WriteString(conn, "ping"); err != nil {
				return err
			}
			got := make([]byte, 4)
			if _, err := io.ReadFull(br, got); err != nil {
				return err
			}
			if string(got) != "ping" {
				return errors.New("echoed " + strconv.Quote(string(got)))
			}
			return nil
		}
		Expect(ping()).To(Succeed(), "the upgraded connection echoes")

		By("revoking the token in the console")
		status, raw := k.do(mallory, http.MethodDelete, "/auth/tokens/"+id, "", nil)
		Expect(status).To(BeNumerically("<", 300), raw)

		By("the proxy closing the upgraded connection within seconds, and the target's side with it")
		closedByProxy(conn, br, 15*time.Second)
		Eventually(serverDone).WithTimeout(5 * time.Second).Should(Receive())
	}, SpecTimeout(60*time.Second))
})

var _ = Describe("Threat 20: a member holds open connections and tokens without bound", func() {
	const conns, tokensPerUser, tokens = 6, 2, 3
	var (
		k     *stack
		plain string
	)

	BeforeEach(func() {
		// A pass-through host that answers plain HTTP and tunnels.
		srv := httptest.NewServer(http.HandlerFunc(func(w http.ResponseWriter, _ *http.Request) { _, _ = io.WriteString(w, "ok") }))
		DeferCleanup(srv.Close)
		plain = srv.Listener.Addr().String()
		k = startKeygate(allowEgress(plain), func(c *config.Config) {
			c.ProxyPassthrough = append(c.ProxyPassthrough, plain)
			c.ProxyMaxConnsPerUser, c.ProxyMaxTokensPerUser, c.ProxyMaxTokens = conns, tokensPerUser, tokens
		})
	})

	// refusedOver expects the proxy's refusal over a limit: status, a
	// reason that says which limit, and the connection closed.
	refusedOver := func(token string, status int, reason string) {
		GinkgoHelper()
		conn, br, resp := rawProxy(k, "CONNECT api2.cursor.sh:443 HTTP/1.1\r\nHost: api2.cursor.sh:443\r\n", token)
		Expect(resp.StatusCode).To(Equal(status))
		Expect(body(resp)).To(ContainSubstring(reason))
		closedByProxy(conn, br, 5*time.Second)
	}

	It("refuses the member's connection beyond the bound with 429 and closes it, lets another member in, and frees a place when one closes", func() {
		var open []*tls.Conn
		for range conns {
			resp, tc := intercepted(k, k.memberToken)
			Expect(resp.StatusCode).To(Equal(http.StatusOK))
			open = append(open, tc)
		}
		refusedOver(k.memberToken, http.StatusTooManyRequests, strconv.Itoa(conns)+" connections open")

		By("another member's connection passing")
		_, adaToken := k.newToken(user{id: "ada@corp.test", groups: "staff"}, "ada's laptop")
		resp, tc := intercepted(k, adaToken)
		Expect(resp.StatusCode).To(Equal(http.StatusOK))
		Expect(tc.Close()).To(Succeed())

		By("a closed connection freeing its place")
		Expect(open[0].Close()).To(Succeed())
		Eventually(func() int {
			resp, tc := intercepted(k, k.memberToken)
			if tc != nil {
				DeferCleanup(func() { _ = tc.Close() })
			}
			return resp.StatusCode
		}).WithTimeout(10 * time.Second).Should(Equal(http.StatusOK))
	})

	It("counts tunnels and keep-alive plain-HTTP connections towards the same bound", func() {
		for range conns - 2 {
			resp, _ := intercepted(k, k.memberToken)
			Expect(resp.StatusCode).To(Equal(http.StatusOK))
		}
		_, _, resp := k.connect(plain)
		Expect(resp.StatusCode).To(Equal(http.StatusOK), "a tunnel")
		_, _, resp = k.proxyConn("GET http://" + plain + "/ HTTP/1.1\r\nHost: " + plain + "\r\n")
		Expect(resp.StatusCode).To(Equal(http.StatusOK), "a keep-alive plain-HTTP connection")
		Expect(body(resp)).To(Equal("ok"))
		Expect(resp.Close).To(BeFalse())
		refusedOver(k.memberToken, http.StatusTooManyRequests, strconv.Itoa(conns)+" connections open")
	})

	It("refuses a further distinct token of one member with 429, and one beyond everyone's bound with 503", func() {
		_, second := k.newToken(mallory, "second machine")
		_, third := k.newToken(mallory, "third machine")
		for _, token := range []string{k.memberToken, second} {
			resp, _ := intercepted(k, token)
			Expect(resp.StatusCode).To(Equal(http.StatusOK))
		}
		refusedOver(third, http.StatusTooManyRequests, strconv.Itoa(tokensPerUser)+" different gateway tokens")

		By("other members' tokens filling the proxy's bound")
		_, adaToken := k.newToken(user{id: "ada@corp.test", groups: "staff"}, "ada's laptop")
		resp, _ := intercepted(k, adaToken)
		Expect(resp.StatusCode).To(Equal(http.StatusOK))
		_, bobToken := k.newToken(user{id: "bob@corp.test", groups: "staff"}, "bob's laptop")
		refusedOver(bobToken, http.StatusServiceUnavailable, "as many different gateway tokens as it may")
	})
})
