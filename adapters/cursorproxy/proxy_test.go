package cursorproxy_test

import (
	"bufio"
	"context"
	"crypto/tls"
	"encoding/base64"
	"io"
	"net"
	"net/http"
	"net/url"
	"os"
	"strings"
	"time"

	. "github.com/onsi/ginkgo/v2"
	. "github.com/onsi/gomega"
	"go.uber.org/zap"

	"keygate/adapters/cursor/unary"
	"keygate/adapters/cursorproxy"
	"keygate/adapters/upstream"
)

// received is one request as the fake Cursor saw it.
type received struct {
	Method, Host, URI, Body string
	Header                  http.Header
}

var _ = Describe("Proxy", func() {
	var (
		e      *env
		opts   envOptions
		cursor chan received
		client *http.Client
	)

	BeforeEach(func() {
		cursor = make(chan received, 16)
		routes := map[string]http.Handler{"/aiserver.v1.AiService/GetServerConfig": whoami}
		// The probes that must never leave the machine are Keygate routes
		// (docs/cursor-protocol.md, "Local stubs"; the Cursor adapter serves
		// them), so they are answered without leaving the machine.
		for path, status := range unary.Stubs {
			routes[path] = unary.Stub(status)
		}
		opts = envOptions{
			Routes: routes,
			Cursor: http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
				body, _ := io.ReadAll(r.Body)
				cursor <- received{Method: r.Method, Host: r.Host, URI: r.RequestURI, Body: string(body), Header: r.Header.Clone()}
				w.Header().Set("X-From", "cursor")
				w.WriteHeader(http.StatusAccepted)
				_, _ = io.WriteString(w, "upstream answer")
			}),
		}
	})

	JustBeforeEach(func() {
		e = startEnv(opts)
		client = e.Client(nil)
	})

	Context("for a route Keygate implements", func() {
		It("serves https://api2.cursor.sh from Keygate's handler to a client that trusts the installation CA", func() {
			resp, err := client.Post("https://api2.cursor.sh/aiserver.v1.AiService/GetServerConfig", "application/proto", nil)
			Expect(err).NotTo(HaveOccurred())
			Expect(resp).To(HaveHTTPBody("keygate"))
			Expect(resp.TLS.PeerCertificates[0].Issuer.CommonName).To(Equal("installation root"))
			Expect(cursor).NotTo(Receive())
		})

		It("tells the handler the original URL and, on a laptop, the local user", func() {
			resp, err := client.Get("https://api2.cursor.sh/aiserver.v1.AiService/GetServerConfig?probe=1")
			Expect(err).NotTo(HaveOccurred())
			Expect(resp).To(HaveHTTPHeaderWithValue("X-Original-URL", "https://api2.cursor.sh/aiserver.v1.AiService/GetServerConfig?probe=1"))
			Expect(resp).To(HaveHTTPHeaderWithValue("X-User", "local"))
		})

		It("rebuilds the original URL itself, whatever the client claims", func() {
			req, _ := http.NewRequest(http.MethodPost, "https://api2.cursor.sh/aiserver.v1.AiService/GetServerConfig", nil)
			req.Header.Set(upstream.HeaderUpstreamURL, "https://evil.example/steal")
			resp, err := client.Do(req)
			Expect(err).NotTo(HaveOccurred())
			Expect(resp).To(HaveHTTPHeaderWithValue("X-Original-URL", "https://api2.cursor.sh/aiserver.v1.AiService/GetServerConfig"))
		})
	})

	Context("for a route Keygate does not implement", func() {
		It("passes method, path, query, headers and body to Cursor and the answer back", func() {
			req, _ := http.NewRequest(http.MethodPut, "https://api3.cursor.sh/aiserver.v1.AiService/CheckQueuePosition?x=1", strings.NewReader("body bytes"))
			req.Header.Set("Authorization", "Bearer cursor-jwt")
			req.Header.Set("X-Cursor-Client-Version", "3.14.7")
			req.Header.Set("Connection", "X-Hop")
			req.Header.Set("X-Hop", "hop-by-hop")
			resp, err := client.Do(req)
			Expect(err).NotTo(HaveOccurred())
			Expect(resp).To(HaveHTTPStatus(http.StatusAccepted))
			Expect(resp).To(HaveHTTPHeaderWithValue("X-From", "cursor"))
			Expect(resp).To(HaveHTTPBody("upstream answer"))

			var got received
			Expect(cursor).To(Receive(&got))
			Expect(got.Method).To(Equal(http.MethodPut))
			Expect(got.Host).To(Equal("api3.cursor.sh"), "the host the client asked for")
			Expect(got.URI).To(Equal("/aiserver.v1.AiService/CheckQueuePosition?x=1"))
			Expect(got.Body).To(Equal("body bytes"))
			Expect(got.Header.Get("Authorization")).To(Equal("Bearer cursor-jwt"))
			Expect(got.Header.Get("X-Cursor-Client-Version")).To(Equal("3.14.7"))
			Expect(got.Header).NotTo(HaveKey("X-Hop"))
			Expect(got.Header).NotTo(HaveKey(upstream.HeaderUpstreamURL))
		})

		When("Cursor answers with a server stream", func() {
			var release chan struct{}

			BeforeEach(func() {
				release = make(chan struct{})
				opts.Cursor = http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
					w.Header().Set("Content-Type", "application/connect+proto")
					_, _ = io.WriteString(w, "message 1\n")
					http.NewResponseController(w).Flush()
					select {
					case <-release:
					case <-r.Context().Done():
						return
					}
					_, _ = io.WriteString(w, "message 2\n")
				})
			})

			It("delivers each message as it is sent, not when the stream ends", func() {
				resp, err := client.Post("https://api2.cursor.sh/aiserver.v1.AiService/StreamCpp", "application/connect+proto", nil)
				Expect(err).NotTo(HaveOccurred())
				DeferCleanup(resp.Body.Close)
				lines := make(chan string, 2)
				go func() {
					defer GinkgoRecover()
					r := bufio.NewReader(resp.Body)
					for {
						line, err := r.ReadString('\n')
						if err != nil {
							close(lines)
							return
						}
						lines <- line
					}
				}()
				By("receiving the first message while Cursor still holds the second back")
				Eventually(lines).Should(Receive(Equal("message 1\n")))
				close(release)
				Eventually(lines).Should(Receive(Equal("message 2\n")))
			})
		})

		When("the client uploads a long body", func() {
			var firstPart chan string

			BeforeEach(func() {
				firstPart = make(chan string, 1)
				opts.Cursor = http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
					buf := make([]byte, len("part one;"))
					if _, err := io.ReadFull(r.Body, buf); err != nil {
						return
					}
					firstPart <- string(buf)
					rest, _ := io.ReadAll(r.Body)
					_, _ = io.WriteString(w, string(buf)+string(rest))
				})
			})

			It("streams the request body to Cursor as the client writes it", func() {
				pr, pw := io.Pipe()
				answer := make(chan *http.Response, 1)
				go func() {
					defer GinkgoRecover()
					resp, err := client.Post("https://api2.cursor.sh/aiserver.v1.AiService/Upload", "application/octet-stream", pr)
					Expect(err).NotTo(HaveOccurred())
					answer <- resp
				}()
				_, _ = io.WriteString(pw, "part one;")
				Eventually(firstPart).Should(Receive(Equal("part one;")), "Cursor sees the first part before the second exists")
				_, _ = io.WriteString(pw, "part two")
				Expect(pw.Close()).To(Succeed())
				var resp *http.Response
				Eventually(answer).Should(Receive(&resp))
				Expect(resp).To(HaveHTTPBody("part one;part two"))
			})
		})
	})

	DescribeTable("answers the probes that must never leave the machine locally",
		func(path string, status int, grpc bool) {
			resp, err := client.Post("https://api2.cursor.sh"+path, "application/proto", nil)
			Expect(err).NotTo(HaveOccurred())
			Expect(resp).To(HaveHTTPStatus(status))
			Expect(resp.ContentLength).To(BeZero())
			if grpc {
				Expect(resp).To(HaveHTTPHeaderWithValue("Content-Type", "application/grpc"))
			}
			Expect(cursor).NotTo(Receive())
		},
		Entry("the legacy /agent/v1/run probe gets 404, so the client falls back to RunSSE", "/agent/v1/run", 404, false),
		Entry("cloud agent store tokens get 400, so the client uses local stores",
			"/aiserver.v1.BackgroundComposerService/MintAgentStoreToken", 400, true),
		Entry("private worker listing gets 400", "/aiserver.v1.BackgroundComposerService/ListPrivateWorkers", 400, true),
		Entry("environment listing gets 400", "/aiserver.v1.BackgroundComposerService/ListEnvironments", 400, true),
		Entry("background composer listing gets 400", "/aiserver.v1.BackgroundComposerService/ListBackgroundComposers", 400, true),
		Entry("file sync gets 404", "/aiserver.v1.FileSyncService/FSSyncFile", 404, true),
		Entry("the websocket reachability probe gets 404", "/ws-reachability-probe", 404, false),
	)

	Context("for a host Keygate does not intercept", func() {
		It("tunnels the TLS session untouched: the client sees the site's own certificate", func() {
			resp, err := client.Get("https://example.com/")
			Expect(err).NotTo(HaveOccurred())
			Expect(resp).To(HaveHTTPBody("the real example.com"))
			Expect(resp.TLS.PeerCertificates[0].Equal(e.Other.Certificate())).To(BeTrue())
		})

		It("answers 502 when the site cannot be reached", func() {
			Expect(e.connect("unreachable.example:443", "")).To(HaveHTTPStatus(http.StatusBadGateway))
		})

		It("forwards plain-HTTP proxy requests without passing the proxy credentials on", func() {
			resp, err := e.Client(url.UserPassword("u", "t")).Get("http://plain.example/")
			Expect(err).NotTo(HaveOccurred())
			Expect(resp).To(HaveHTTPBody("plain plain.example "))
		})
	})

	It("never mints a certificate for another name inside a tunnel opened for a Cursor host", func() {
		hc := e.Client(nil)
		hc.Transport.(*http.Transport).TLSClientConfig.ServerName = "bank.example"
		_, err := hc.Get("https://api2.cursor.sh/aiserver.v1.AiService/GetServerConfig")
		By("failing in the proxy's handshake, not in the client's certificate check")
		Expect(err).To(MatchError(ContainSubstring("remote error")))
	})

	It("cuts open tunnels when it shuts down", func() {
		conn, resp := e.dialConnect("example.com:443", "")
		Expect(resp).To(HaveHTTPStatus(http.StatusOK))
		Expect(e.Stop()).To(Succeed())
		Expect(conn.SetReadDeadline(time.Now().Add(10 * time.Second))).To(Succeed())
		_, err := conn.Read(make([]byte, 1))
		Expect(err).To(HaveOccurred())
		Expect(err).NotTo(MatchError(os.ErrDeadlineExceeded), "the proxy closed the tunnel")
	})

	It("turns away requests that are not proxy requests", func() {
		resp, err := http.Get("http://" + e.ProxyAddr + "/aiserver.v1.AiService/GetServerConfig")
		Expect(err).NotTo(HaveOccurred())
		Expect(resp).To(HaveHTTPStatus(http.StatusBadRequest))
	})

	Context("in company mode, with proxy credentials required", func() {
		BeforeEach(func() {
			opts.Auth = tokens{users: map[string]string{"tok-ada": "ada", "tok-bob": "bob"}}
		})

		basic := func(user, pass string) string {
			return "Basic " + base64.StdEncoding.EncodeToString([]byte(user+":"+pass))
		}

		DescribeTable("refuses a CONNECT with 407 and a Basic challenge",
			func(auth string) {
				resp := e.connect("api2.cursor.sh:443", auth)
				Expect(resp).To(HaveHTTPStatus(http.StatusProxyAuthRequired))
				Expect(resp).To(HaveHTTPHeaderWithValue("Proxy-Authenticate", `Basic realm="Keygate"`))
			},
			Entry("when credentials are missing", ""),
			Entry("when the token is unknown", basic("ada", "tok-wrong")),
			Entry("when the credentials are not base64", "Basic !!!"),
			Entry("when the scheme is unknown", "Digest tok-ada"),
			Entry("when a bearer token is unknown", "Bearer tok-wrong"),
		)

		It("refuses tunnels to other hosts without credentials too", func() {
			Expect(e.connect("example.com:443", "")).To(HaveHTTPStatus(http.StatusProxyAuthRequired))
		})

		It("refuses plain-HTTP proxy requests without credentials", func() {
			resp, err := client.Get("http://plain.example/")
			Expect(err).NotTo(HaveOccurred())
			Expect(resp).To(HaveHTTPStatus(http.StatusProxyAuthRequired))
		})

		It("scopes every request inside the tunnel to the token's user", func() {
			for user, token := range map[string]string{"ada": "tok-ada", "bob": "tok-bob"} {
				resp, err := e.Client(url.UserPassword("cursor", token)).Get("https://api2.cursor.sh/aiserver.v1.AiService/GetServerConfig")
				Expect(err).NotTo(HaveOccurred())
				Expect(resp).To(HaveHTTPHeaderWithValue("X-User", user))
			}
		})

		It("accepts the token as a bearer credential or as a bare user name", func() {
			Expect(e.connect("api2.cursor.sh:443", "Bearer tok-ada")).To(HaveHTTPStatus(http.StatusOK))
			Expect(e.connect("api2.cursor.sh:443", basic("tok-bob", ""))).To(HaveHTTPStatus(http.StatusOK))
		})

		When("the proxy itself speaks TLS", func() {
			BeforeEach(func() { opts.ListenTLS = true })

			It("takes the token over an encrypted connection and serves as before", func() {
				resp, err := e.Client(url.UserPassword("cursor", "tok-ada")).Get("https://api2.cursor.sh/aiserver.v1.AiService/GetServerConfig")
				Expect(err).NotTo(HaveOccurred())
				Expect(resp).To(HaveHTTPHeaderWithValue("X-User", "ada"))
			})
		})

		When("the token store is down", func() {
			BeforeEach(func() { opts.Auth = tokens{down: true} })

			It("answers 503 rather than letting the user in or blaming their token", func() {
				Expect(e.connect("api2.cursor.sh:443", "Bearer tok-ada")).To(HaveHTTPStatus(http.StatusServiceUnavailable))
			})
		})
	})
})

var _ = Describe("cursorproxy.New", func() {
	It("names the missing handler when a required option is absent", func() {
		_, err := cursorproxy.New(cursorproxy.Options{}, nil)
		Expect(err).To(MatchError(cursorproxy.ErrMissingOption))
		Expect(err).To(MatchError(ContainSubstring("Certificate")))
	})

	DescribeTable("refuses to listen beyond loopback without an authenticator",
		func(addr string, allowed bool) {
			opts := cursorproxy.Options{
				Addr:        addr,
				Certificate: func(string) (*tls.Certificate, error) { return nil, nil },
				Keygate:     http.NotFoundHandler(), IsKeygatePath: func(string) bool { return false },
				Upstream: http.NotFoundHandler(), Tunnel: func(context.Context, string) (net.Conn, error) { return nil, nil },
			}
			p, err := cursorproxy.New(opts, zap.NewNop())
			if allowed {
				Expect(err).NotTo(HaveOccurred())
				Expect(p.Close(context.Background())).To(Succeed())
			} else {
				Expect(err).To(MatchError(cursorproxy.ErrOpenProxy))
			}
		},
		Entry("a laptop proxy on 127.0.0.1 needs none", "127.0.0.1:7879", true),
		Entry("nor does one on localhost", "localhost:7879", true),
		Entry("nor one on IPv6 loopback", "[::1]:7879", true),
		Entry("one on every interface does", "0.0.0.0:7879", false),
		Entry("one with only a port does", ":7879", false),
	)

	DescribeTable("refuses a company proxy beyond loopback that would take gateway tokens in clear text",
		func(addr string, tune func(*cursorproxy.Options), allowed bool) {
			opts := cursorproxy.Options{
				Addr:        addr,
				Certificate: func(string) (*tls.Certificate, error) { return nil, nil },
				Keygate:     http.NotFoundHandler(), IsKeygatePath: func(string) bool { return false },
				Upstream: http.NotFoundHandler(), Tunnel: func(context.Context, string) (net.Conn, error) { return nil, nil },
				Auth: tokens{},
			}
			if tune != nil {
				tune(&opts)
			}
			p, err := cursorproxy.New(opts, zap.NewNop())
			if allowed {
				Expect(err).NotTo(HaveOccurred())
				Expect(p.Close(context.Background())).To(Succeed())
			} else {
				Expect(err).To(MatchError(cursorproxy.ErrClearTextTokens))
			}
		},
		Entry("plain HTTP on every interface is refused", "0.0.0.0:8443", nil, false),
		Entry("TLS on every interface is fine", "0.0.0.0:8443", func(o *cursorproxy.Options) { o.ListenTLS = &tls.Config{} }, true),
		Entry("plain HTTP behind a TLS terminator is fine", "0.0.0.0:8443", func(o *cursorproxy.Options) { o.TLSTerminated = true }, true),
		Entry("plain HTTP on loopback (a sidecar's) is fine", "127.0.0.1:8443", nil, true),
	)
})
