package cursorproxy_test

import (
	"bufio"
	"context"
	"crypto/tls"
	"encoding/base64"
	"fmt"
	"io"
	"net"
	"net/http"
	"net/url"
	"os"
	"time"

	. "github.com/onsi/ginkgo/v2"
	. "github.com/onsi/gomega"

	"keygate/adapters/cursorproxy"
	"keygate/domain/destination"
	"keygate/ports"
)

// Short bounds, so that the specs see every timeout fire; the assertions
// never measure time, they only wait (at most 10 s) for the proxy to act.
const (
	shortTimeout = 300 * time.Millisecond
	recheckEvery = 100 * time.Millisecond
)

func basicAuth(token string) string {
	return "Basic " + base64.StdEncoding.EncodeToString([]byte("cursor:"+token))
}

// expectClosedByProxy reads c until it fails and expects the proxy to have
// closed it, rather than the spec's own 10 s deadline to have passed.
func expectClosedByProxy(c net.Conn, r io.Reader) {
	GinkgoHelper()
	if r == nil {
		r = c
	}
	Expect(c.SetReadDeadline(time.Now().Add(10 * time.Second))).To(Succeed())
	buf := make([]byte, 4096)
	for {
		_, err := r.Read(buf)
		if err != nil {
			Expect(err).NotTo(MatchError(os.ErrDeadlineExceeded), "the proxy closed the connection")
			return
		}
	}
}

// streamRoute is a Keygate route that reads its body, then writes a
// heartbeat line every 50 ms, beats times (forever when beats is 0), as
// RunSSE does while a turn runs. Like a strict decoder, it reads once more
// after the end of the body, to be sure nothing follows.
func streamRoute(beats int) http.Handler {
	return http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
		if _, err := io.ReadAll(r.Body); err != nil {
			http.Error(w, err.Error(), http.StatusBadRequest)
			return
		}
		if n, _ := r.Body.Read(make([]byte, 1)); n != 0 {
			http.Error(w, "trailing bytes", http.StatusBadRequest)
			return
		}
		w.Header().Set("Content-Type", "text/event-stream")
		for i := 0; beats == 0 || i < beats; i++ {
			if _, err := fmt.Fprintf(w, "beat %d\n", i); err != nil {
				return
			}
			_ = http.NewResponseController(w).Flush()
			select {
			case <-r.Context().Done():
				return
			case <-time.After(50 * time.Millisecond):
			}
		}
		_, _ = io.WriteString(w, "end\n")
	})
}

// slurp is a Keygate route that reads its whole body.
var slurp = http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
	body, err := io.ReadAll(r.Body)
	if err != nil {
		http.Error(w, "body: "+err.Error(), http.StatusBadRequest)
		return
	}
	_, _ = fmt.Fprintf(w, "read %d bytes", len(body))
})

// flood is a Keygate route that writes 32 KiB chunks until a write fails,
// and reports that failure.
func flood(failed chan<- error) http.Handler {
	return http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
		chunk := make([]byte, 32<<10)
		for {
			if _, err := w.Write(chunk); err != nil {
				failed <- err
				return
			}
			if err := http.NewResponseController(w).Flush(); err != nil {
				failed <- err
				return
			}
		}
	})
}

var _ = Describe("Proxy hardening", func() {
	var (
		e       *env
		opts    envOptions
		auth    *revocable
		flooded chan error
	)

	BeforeEach(func() {
		flooded = make(chan error, 1)
		auth = newRevocable(map[string]string{"tok-ada": "ada", "tok-bob": "bob"})
		opts = envOptions{
			Routes: map[string]http.Handler{
				"/aiserver.v1.AiService/GetServerConfig": whoami,
				"/stream":                                streamRoute(0),
				"/stream20":                              streamRoute(20),
				"/slurp":                                 slurp,
				"/flood":                                 flood(flooded),
			},
			Cursor: http.NotFoundHandler(),
		}
	})

	JustBeforeEach(func() {
		e = startEnv(opts)
	})

	// intercepted opens a CONNECT to api2.cursor.sh with auth (none when
	// empty) and the TLS session inside it.
	intercepted := func(auth string) (*tls.Conn, *bufio.Reader) {
		GinkgoHelper()
		conn, resp := e.dialConnect("api2.cursor.sh:443", auth)
		Expect(resp).To(HaveHTTPStatus(http.StatusOK))
		tc := tls.Client(conn, &tls.Config{RootCAs: e.Pool, ServerName: "api2.cursor.sh"})
		Expect(tc.Handshake()).To(Succeed())
		return tc, bufio.NewReader(tc)
	}

	// request writes one HTTP/1.1 request on c and reads its answer's
	// header.
	request := func(c net.Conn, br *bufio.Reader, method, path string) (*http.Response, error) {
		GinkgoHelper()
		req, _ := http.NewRequest(method, "https://api2.cursor.sh"+path, nil)
		if err := req.Write(c); err != nil {
			return nil, err
		}
		return http.ReadResponse(br, req)
	}

	Describe("in company mode, destinations", func() {
		BeforeEach(func() {
			opts.Auth = auth
			opts.Tune = func(o *cursorproxy.Options) {
				var err error
				o.Passthrough, err = destination.ParseAllowlist([]string{"example.com", "plain.example", "echo.example"})
				Expect(err).NotTo(HaveOccurred())
			}
		})

		DescribeTable("are refused with 403, named, never dialled, and the connection closed, outside Cursor's hosts and the pass-through list",
			func(method, target, named string) {
				conn, err := net.Dial("tcp", e.ProxyAddr)
				Expect(err).NotTo(HaveOccurred())
				DeferCleanup(conn.Close)
				host := target
				if u, err := url.Parse(target); err == nil && u.Scheme == "http" {
					host = u.Host
				}
				_, err = fmt.Fprintf(conn, "%s %s HTTP/1.1\r\nHost: %s\r\nProxy-Authorization: %s\r\n\r\n", method, target, host, basicAuth("tok-ada"))
				Expect(err).NotTo(HaveOccurred())
				br := bufio.NewReader(conn)
				resp, err := http.ReadResponse(br, &http.Request{Method: method})
				Expect(err).NotTo(HaveOccurred())
				Expect(resp).To(HaveHTTPStatus(http.StatusForbidden))
				Expect(resp).To(HaveHTTPBody(And(ContainSubstring(named), ContainSubstring("KEYGATE_PROXY_PASSTHROUGH"))))
				Expect(e.Dialed()).To(BeEmpty(), "a refused destination is not even resolved")
				expectClosedByProxy(conn, br)
			},
			Entry("a database on loopback", "CONNECT", "127.0.0.1:5432", "127.0.0.1:5432"),
			Entry("the cloud metadata service", "CONNECT", "169.254.169.254:80", "169.254.169.254:80"),
			Entry("an allowed host on another port", "CONNECT", "example.com:5432", "example.com:5432"),
			Entry("a subdomain of an exactly allowed host", "CONNECT", "www.example.com:443", "www.example.com:443"),
			Entry("a host nobody allowed", "CONNECT", "evil.example:443", "evil.example:443"),
			Entry("plain HTTP to Keygate's console on loopback", "GET", "http://127.0.0.1:7878/auth/me", "127.0.0.1:7878"),
			Entry("plain HTTP to a host nobody allowed", "GET", "http://evil.example/", "evil.example:80"),
		)

		It("reach a pass-through host, tunnelled or in plain HTTP", func() {
			client := e.Client(url.UserPassword("cursor", "tok-ada"))
			resp, err := client.Get("https://example.com/")
			Expect(err).NotTo(HaveOccurred())
			Expect(resp).To(HaveHTTPBody("the real example.com"))
			resp, err = client.Get("http://plain.example/")
			Expect(err).NotTo(HaveOccurred())
			Expect(resp).To(HaveHTTPBody("plain plain.example "))
		})

		It("always include the intercepted Cursor hosts, which are never dialled", func() {
			resp, err := e.Client(url.UserPassword("cursor", "tok-ada")).Get("https://api2.cursor.sh/aiserver.v1.AiService/GetServerConfig")
			Expect(err).NotTo(HaveOccurred())
			Expect(resp).To(HaveHTTPHeaderWithValue("X-User", "ada"))
			Expect(e.Dialed()).To(BeEmpty())
		})
	})

	Describe("in company mode, a refused client", func() {
		BeforeEach(func() { opts.Auth = auth })

		It("has its idle connection closed after a 407, without waiting for an idle timeout", func() {
			conn, resp := e.dialConnect("api2.cursor.sh:443", "")
			Expect(resp).To(HaveHTTPStatus(http.StatusProxyAuthRequired))
			Expect(resp.Close).To(BeTrue(), "the answer says so")
			expectClosedByProxy(conn, nil)
		})

		It("has its idle connection closed after a 403, without waiting for an idle timeout", func() {
			conn, resp := e.dialConnect("127.0.0.1:5432", basicAuth("tok-ada"))
			Expect(resp).To(HaveHTTPStatus(http.StatusForbidden))
			Expect(resp.Close).To(BeTrue(), "the answer says so")
			expectClosedByProxy(conn, nil)
		})
	})

	Describe("on a laptop, destinations", func() {
		It("are all left to the Tunnel dialer, which decides what is reachable", func() {
			Expect(e.connect("evil.example:443", "")).To(HaveHTTPStatus(http.StatusBadGateway), "the spec's dialer refuses it")
			Expect(e.Dialed()).To(Equal([]string{"evil.example:443"}))
		})

		Context("when the Tunnel dialer is the outbound policy", func() {
			BeforeEach(func() {
				opts.Tune = func(o *cursorproxy.Options) {
					o.Tunnel = func(_ context.Context, addr string) (net.Conn, error) {
						return nil, fmt.Errorf("outbound connection to %s refused: Keygate's own listener: %w", addr, ports.ErrDestinationRefused)
					}
				}
			})

			It("answer a refused destination with 403 and the policy's reason, tunnelled or in plain HTTP, and close the connection", func() {
				resp := e.connect("127.0.0.1:7878", "")
				Expect(resp).To(HaveHTTPStatus(http.StatusForbidden))
				Expect(resp.Close).To(BeTrue(), "the proxy says it closes the connection")
				Expect(resp).To(HaveHTTPBody(ContainSubstring("127.0.0.1:7878 refused: Keygate's own listener")))

				conn, err := net.Dial("tcp", e.ProxyAddr)
				Expect(err).NotTo(HaveOccurred())
				DeferCleanup(conn.Close)
				_, err = io.WriteString(conn, "GET http://127.0.0.1:7878/auth/me HTTP/1.1\r\nHost: 127.0.0.1:7878\r\n\r\n")
				Expect(err).NotTo(HaveOccurred())
				plain, err := http.ReadResponse(bufio.NewReader(conn), nil)
				Expect(err).NotTo(HaveOccurred())
				Expect(plain).To(HaveHTTPStatus(http.StatusForbidden))
				Expect(plain).To(HaveHTTPBody(ContainSubstring("refused: Keygate's own listener")))
			})
		})
	})

	Describe("time bounds", func() {
		BeforeEach(func() {
			opts.Tune = func(o *cursorproxy.Options) {
				o.HeaderTimeout, o.IdleTimeout, o.BodyIdleTimeout = shortTimeout, shortTimeout, shortTimeout
				o.TunnelIdleTimeout, o.WriteTimeout = shortTimeout, shortTimeout
				var err error
				o.Passthrough, err = destination.ParseAllowlist([]string{"silent.example", "echo.example", "plain.example"})
				Expect(err).NotTo(HaveOccurred())
			}
		})

		It("close a connection whose request header never ends", func() {
			conn, err := net.Dial("tcp", e.ProxyAddr)
			Expect(err).NotTo(HaveOccurred())
			DeferCleanup(conn.Close)
			_, err = io.WriteString(conn, "CONNECT api2.cursor.sh:443 HTTP/1.1\r\nHost: api2")
			Expect(err).NotTo(HaveOccurred())
			expectClosedByProxy(conn, nil)
		})

		It("cut an intercepted request that sends one byte of its body and stalls", func() {
			tc, br := intercepted("")
			_, err := io.WriteString(tc, "POST /slurp HTTP/1.1\r\nHost: api2.cursor.sh\r\nContent-Length: 200000\r\n\r\nx")
			Expect(err).NotTo(HaveOccurred())
			expectClosedByProxy(tc, br)
		})

		It("cut an intercepted request whose chunked body stalls", func() {
			tc, br := intercepted("")
			_, err := io.WriteString(tc, "POST /slurp HTTP/1.1\r\nHost: api2.cursor.sh\r\nTransfer-Encoding: chunked\r\n\r\n1\r\nx\r\n")
			Expect(err).NotTo(HaveOccurred())
			expectClosedByProxy(tc, br)
		})

		It("cut a plain-HTTP forward that sends one byte of its body and stalls", func() {
			conn, err := net.Dial("tcp", e.ProxyAddr)
			Expect(err).NotTo(HaveOccurred())
			DeferCleanup(conn.Close)
			_, err = io.WriteString(conn, "POST http://plain.example/ HTTP/1.1\r\nHost: plain.example\r\nContent-Length: 200000\r\n\r\nx")
			Expect(err).NotTo(HaveOccurred())
			expectClosedByProxy(conn, nil)
		})

		It("do not cut a response that streams on long after its body arrived", func() {
			tc, br := intercepted("")
			_, err := io.WriteString(tc, "POST /stream20 HTTP/1.1\r\nHost: api2.cursor.sh\r\nContent-Length: 5\r\n\r\nhello")
			Expect(err).NotTo(HaveOccurred())
			resp, err := http.ReadResponse(br, nil)
			Expect(err).NotTo(HaveOccurred())
			By("streaming 20 heartbeats 50 ms apart, three body timeouts and more")
			body, err := io.ReadAll(resp.Body)
			Expect(err).NotTo(HaveOccurred())
			Expect(string(body)).To(And(ContainSubstring("beat 19\n"), HaveSuffix("end\n")))
		})

		It("close an intercepted keep-alive connection that idles", func() {
			tc, br := intercepted("")
			resp, err := request(tc, br, http.MethodGet, "/aiserver.v1.AiService/GetServerConfig")
			Expect(err).NotTo(HaveOccurred())
			Expect(resp).To(HaveHTTPBody("keygate"))
			expectClosedByProxy(tc, br)
		})

		It("close a tunnel to a server that says nothing, on both sides", func() {
			conn, resp := e.dialConnect("silent.example:443", "")
			Expect(resp).To(HaveHTTPStatus(http.StatusOK))
			expectClosedByProxy(conn, nil)
			Eventually(e.Quit).WithTimeout(10*time.Second).Should(Receive(), "the server's side closed too")
		})

		It("keep a tunnel open while bytes move, however long", func() {
			conn, resp := e.dialConnect("echo.example:443", "")
			Expect(resp).To(HaveHTTPStatus(http.StatusOK))
			buf := make([]byte, 5)
			for i := range 12 { // 12 × 100 ms: four idle timeouts
				_, err := fmt.Fprintf(conn, "ping%d", i%10)
				Expect(err).NotTo(HaveOccurred())
				_, err = io.ReadFull(conn, buf)
				Expect(err).NotTo(HaveOccurred())
				Expect(string(buf)).To(Equal(fmt.Sprintf("ping%d", i%10)))
				time.Sleep(100 * time.Millisecond)
			}
		})

		It("fail a write to a client that stopped reading", func() {
			tc, _ := intercepted("")
			_, err := io.WriteString(tc, "GET /flood HTTP/1.1\r\nHost: api2.cursor.sh\r\n\r\n")
			Expect(err).NotTo(HaveOccurred())
			By("never reading the answer, which the handler writes until a write fails")
			Eventually(flooded).WithTimeout(10 * time.Second).Should(Receive(HaveOccurred()))
		})
	})

	Describe("revoking a gateway token", func() {
		BeforeEach(func() {
			opts.Auth = auth
			opts.Tune = func(o *cursorproxy.Options) {
				o.RecheckInterval = recheckEvery
				var err error
				o.Passthrough, err = destination.ParseAllowlist([]string{"echo.example", "plain.example"})
				Expect(err).NotTo(HaveOccurred())
			}
		})

		It("cuts an intercepted connection opened with it, the turn streaming on it included, and a new request on it fails", func() {
			tc, br := intercepted(basicAuth("tok-ada"))
			resp, err := request(tc, br, http.MethodPost, "/stream")
			Expect(err).NotTo(HaveOccurred())
			line, err := bufio.NewReader(resp.Body).ReadString('\n')
			Expect(err).NotTo(HaveOccurred())
			Expect(line).To(Equal("beat 0\n"))

			auth.Revoke("tok-ada")
			expectClosedByProxy(tc, resp.Body)
			_, err = request(tc, br, http.MethodGet, "/aiserver.v1.AiService/GetServerConfig")
			Expect(err).To(HaveOccurred())
		})

		It("leaves the connections of other tokens alone", func() {
			adaConn, adaReader := intercepted(basicAuth("tok-ada"))
			tc, br := intercepted(basicAuth("tok-bob"))
			auth.Revoke("tok-ada")
			expectClosedByProxy(adaConn, adaReader)
			resp, err := request(tc, br, http.MethodGet, "/aiserver.v1.AiService/GetServerConfig")
			Expect(err).NotTo(HaveOccurred())
			Expect(resp).To(HaveHTTPHeaderWithValue("X-User", "bob"))
		})

		It("cuts a tunnel opened with it", func() {
			conn, resp := e.dialConnect("echo.example:443", basicAuth("tok-ada"))
			Expect(resp).To(HaveHTTPStatus(http.StatusOK))
			_, err := io.WriteString(conn, "ping")
			Expect(err).NotTo(HaveOccurred())
			_, err = io.ReadFull(conn, make([]byte, 4))
			Expect(err).NotTo(HaveOccurred())
			auth.Revoke("tok-ada")
			expectClosedByProxy(conn, nil)
		})

		It("cuts a keep-alive plain-HTTP connection opened with it", func() {
			conn, err := net.Dial("tcp", e.ProxyAddr)
			Expect(err).NotTo(HaveOccurred())
			DeferCleanup(conn.Close)
			_, err = fmt.Fprintf(conn, "GET http://plain.example/ HTTP/1.1\r\nHost: plain.example\r\nProxy-Authorization: %s\r\n\r\n", basicAuth("tok-ada"))
			Expect(err).NotTo(HaveOccurred())
			br := bufio.NewReader(conn)
			resp, err := http.ReadResponse(br, nil)
			Expect(err).NotTo(HaveOccurred())
			Expect(resp).To(HaveHTTPStatus(http.StatusOK))
			Expect(resp.Close).To(BeFalse(), "a keep-alive connection")
			_, _ = io.Copy(io.Discard, resp.Body)
			auth.Revoke("tok-ada")
			expectClosedByProxy(conn, br)
		})

		It("asks the authenticator once per distinct token per round, however many connections it opened", func() {
			for range 3 {
				intercepted(basicAuth("tok-ada"))
			}
			intercepted(basicAuth("tok-bob"))
			adaOpen, bobOpen := auth.Calls("tok-ada"), auth.Calls("tok-bob")
			Expect(adaOpen).To(Equal(3), "one check per CONNECT")
			Eventually(func() int { return auth.Calls("tok-bob") - bobOpen }).WithTimeout(10 * time.Second).Should(BeNumerically(">=", 5))
			adaRounds, bobRounds := auth.Calls("tok-ada")-adaOpen, auth.Calls("tok-bob")-bobOpen
			Expect(adaRounds).To(BeNumerically("~", bobRounds, 1), "ada's three connections cost one check a round, as bob's one")
		})

		It("cuts nothing while the authenticator cannot answer", func() {
			tc, br := intercepted(basicAuth("tok-ada"))
			before := auth.Calls("tok-ada")
			auth.SetDown(true)
			Eventually(func() int { return auth.Calls("tok-ada") - before }).WithTimeout(10 * time.Second).Should(BeNumerically(">=", 3))
			auth.SetDown(false)
			resp, err := request(tc, br, http.MethodGet, "/aiserver.v1.AiService/GetServerConfig")
			Expect(err).NotTo(HaveOccurred())
			Expect(resp).To(HaveHTTPHeaderWithValue("X-User", "ada"))
		})
	})
})
