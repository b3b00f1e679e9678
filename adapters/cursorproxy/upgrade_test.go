package cursorproxy_test

import (
	"bufio"
	"fmt"
	"io"
	"net"
	"net/http"
	"net/http/httptest"
	"time"

	. "github.com/onsi/ginkgo/v2"
	. "github.com/onsi/gomega"

	"keygate/adapters/cursorproxy"
	"keygate/domain/destination"
)

// upgradeServer switches a request asking for Upgrade: echo to that
// protocol: it echoes what it reads, or says nothing when silent.
func upgradeServer(silent bool) string {
	srv := httptest.NewServer(http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
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
		if silent {
			_, _ = io.Copy(io.Discard, brw)
			return
		}
		_, _ = io.Copy(c, brw)
	}))
	DeferCleanup(srv.Close)
	return srv.Listener.Addr().String()
}

var _ = Describe("An upgraded plain-HTTP connection", func() {
	var (
		e            *env
		auth         *revocable
		echo, silent string
		tune         func(*cursorproxy.Options)
	)

	BeforeEach(func() {
		auth = newRevocable(map[string]string{"tok-ada": "ada"})
		echo, silent = upgradeServer(false), upgradeServer(true)
		tune = func(*cursorproxy.Options) {}
	})

	JustBeforeEach(func() {
		e = startEnv(envOptions{Auth: auth, Cursor: http.NotFoundHandler(), Tune: func(o *cursorproxy.Options) {
			var err error
			o.Passthrough, err = destination.ParseAllowlist([]string{echo, silent})
			Expect(err).NotTo(HaveOccurred())
			tune(o)
		}})
	})

	// upgrade asks the proxy, with ada's token, to switch target to echo.
	upgrade := func(target string) (net.Conn, *bufio.Reader) {
		GinkgoHelper()
		conn, err := net.Dial("tcp", e.ProxyAddr)
		Expect(err).NotTo(HaveOccurred())
		DeferCleanup(func() { _ = conn.Close() }) // the spec may have closed it
		_, err = fmt.Fprintf(conn, "GET http://%s/ HTTP/1.1\r\nHost: %s\r\nConnection: Upgrade\r\nUpgrade: echo\r\nProxy-Authorization: %s\r\n\r\n",
			target, target, basicAuth("tok-ada"))
		Expect(err).NotTo(HaveOccurred())
		br := bufio.NewReader(conn)
		resp, err := http.ReadResponse(br, nil)
		Expect(err).NotTo(HaveOccurred())
		Expect(resp).To(HaveHTTPStatus(http.StatusSwitchingProtocols))
		return conn, br
	}

	ping := func(conn net.Conn, br *bufio.Reader) {
		GinkgoHelper()
		_, err := io.WriteString(conn, "ping")
		Expect(err).NotTo(HaveOccurred())
		got := make([]byte, 4)
		_, err = io.ReadFull(br, got)
		Expect(err).NotTo(HaveOccurred())
		Expect(string(got)).To(Equal("ping"))
	}

	Context("in company mode", func() {
		BeforeEach(func() {
			tune = func(o *cursorproxy.Options) { o.RecheckInterval = recheckEvery }
		})

		It("is cut when its token is revoked", func() {
			conn, br := upgrade(echo)
			ping(conn, br)
			auth.Revoke("tok-ada")
			expectClosedByProxy(conn, br)
		})

		It("is cut when the proxy closes, too", func() {
			conn, br := upgrade(echo)
			ping(conn, br)
			Expect(e.Stop()).To(Succeed())
			expectClosedByProxy(conn, br)
		})
	})

	Context("with one connection allowed per member", func() {
		BeforeEach(func() {
			tune = func(o *cursorproxy.Options) { o.MaxConnsPerUser = 1 }
		})

		It("counts towards its member's connections, and frees its place when it ends", func() {
			conn, br := upgrade(echo)
			ping(conn, br)
			Expect(e.connect("api2.cursor.sh:443", basicAuth("tok-ada"))).To(HaveHTTPStatus(http.StatusTooManyRequests))
			Expect(conn.Close()).To(Succeed())
			Eventually(func() int {
				return e.connect("api2.cursor.sh:443", basicAuth("tok-ada")).StatusCode
			}).WithTimeout(10 * time.Second).Should(Equal(http.StatusOK))
		})
	})

	Context("with a short tunnel idle timeout", func() {
		BeforeEach(func() {
			tune = func(o *cursorproxy.Options) { o.TunnelIdleTimeout = shortTimeout }
		})

		It("ends when its target stays silent that long", func() {
			conn, br := upgrade(silent)
			expectClosedByProxy(conn, br)
		})
	})
})

var _ = Describe("Cursor's hosts off HTTPS on 443", func() {
	DescribeTable("are refused with 403 in every mode, never dialled, and the connection closed",
		func(auth bool, method, target, named string) {
			o := envOptions{Cursor: http.NotFoundHandler()}
			if auth {
				o.Auth = tokens{users: map[string]string{"tok-ada": "ada"}}
			}
			e := startEnv(o)
			conn, err := net.Dial("tcp", e.ProxyAddr)
			Expect(err).NotTo(HaveOccurred())
			DeferCleanup(conn.Close)
			host := target
			if method != http.MethodConnect {
				host = named
			}
			_, err = fmt.Fprintf(conn, "%s %s HTTP/1.1\r\nHost: %s\r\nProxy-Authorization: %s\r\n\r\n", method, target, host, basicAuth("tok-ada"))
			Expect(err).NotTo(HaveOccurred())
			br := bufio.NewReader(conn)
			resp, err := http.ReadResponse(br, &http.Request{Method: method})
			Expect(err).NotTo(HaveOccurred())
			Expect(resp).To(HaveHTTPStatus(http.StatusForbidden))
			Expect(resp).To(HaveHTTPBody(And(ContainSubstring(named), ContainSubstring("port 443"))))
			Expect(e.Dialed()).To(BeEmpty())
			expectClosedByProxy(conn, br)
		},
		Entry("company, CONNECT to another port", true, "CONNECT", "api2.cursor.sh:8443", "api2.cursor.sh:8443"),
		Entry("company, plain HTTP", true, "GET", "http://api2.cursor.sh/", "api2.cursor.sh:80"),
		Entry("company, plain HTTP on 443", true, "GET", "http://api2.cursor.sh:443/", "api2.cursor.sh:443"),
		Entry("laptop, CONNECT to another port", false, "CONNECT", "models.cursor.sh:11434", "models.cursor.sh:11434"),
		Entry("laptop, plain HTTP", false, "GET", "http://models.cursor.sh:11434/", "models.cursor.sh:11434"),
	)
})
