package company_test

import (
	"bufio"
	"context"
	"crypto/rand"
	"crypto/tls"
	"encoding/base64"
	"errors"
	"net"
	"net/http"
	"net/http/httptest"

	. "github.com/onsi/ginkgo/v2"
	. "github.com/onsi/gomega"
	"go.uber.org/zap"

	"keygate/adapters/cursorproxy"
	"keygate/adapters/sqlite"
	"keygate/app/company"
	"keygate/app/run/runtest"
	"keygate/domain/access"
	"keygate/domain/identity"
)

// Tokens plugged into the real Cursor proxy as its ProxyAuthenticator.
var _ = Describe("Tokens as the company proxy's credentials", func() {
	var (
		proxyAddr string
		tokens    *company.Tokens
		ada       = access.Principal{Identity: identity.Identity{UserID: "ada"}, Role: access.Member}
	)
	BeforeEach(func() {
		ctx := context.Background()
		db, err := sqlite.Open(ctx, GinkgoT().TempDir(), zap.NewNop())
		Expect(err).NotTo(HaveOccurred())
		DeferCleanup(db.Close)
		tokens = company.NewTokens(sqlite.NewStore(db).Tokens(), runtest.NewClock(), rand.Reader)
		proxy, err := cursorproxy.New(cursorproxy.Options{
			Addr:          "127.0.0.1:0",
			Certificate:   func(string) (*tls.Certificate, error) { return nil, errors.New("no certificate in this spec") },
			Keygate:       http.NotFoundHandler(),
			IsKeygatePath: func(string) bool { return false },
			Upstream:      http.NotFoundHandler(),
			Tunnel:        func(context.Context, string) (net.Conn, error) { return nil, errors.New("no tunnels") },
			Auth:          tokens,
		}, zap.NewNop())
		Expect(err).NotTo(HaveOccurred())
		srv := httptest.NewServer(proxy)
		DeferCleanup(srv.Close)
		proxyAddr = srv.Listener.Addr().String()
	})

	// connect sends CONNECT for Cursor's API host and returns the status.
	connect := func(auth string) int {
		conn, err := net.Dial("tcp", proxyAddr)
		Expect(err).NotTo(HaveOccurred())
		defer conn.Close()
		req := "CONNECT api2.cursor.sh:443 HTTP/1.1\r\nHost: api2.cursor.sh:443\r\n"
		if auth != "" {
			req += "Proxy-Authorization: " + auth + "\r\n"
		}
		_, err = conn.Write([]byte(req + "\r\n"))
		Expect(err).NotTo(HaveOccurred())
		resp, err := http.ReadResponse(bufio.NewReader(conn), nil)
		Expect(err).NotTo(HaveOccurred())
		return resp.StatusCode
	}
	basic := func(token string) string {
		return "Basic " + base64.StdEncoding.EncodeToString([]byte("cursor:"+token))
	}

	It("opens the tunnel for a valid personal token", func() {
		_, text, err := tokens.Create(context.Background(), ada, "laptop", 0)
		Expect(err).NotTo(HaveOccurred())
		Expect(connect(basic(text))).To(Equal(http.StatusOK))
		Expect(connect("Bearer " + text)).To(Equal(http.StatusOK))
	})

	DescribeTable("answers 407",
		func(auth func() string) { Expect(connect(auth())).To(Equal(http.StatusProxyAuthRequired)) },
		Entry("without credentials", func() string { return "" }),
		Entry("for a made-up token", func() string { return basic("kg_" + "AAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAA") }),
		Entry("for a revoked token", func() string {
			t, text, err := tokens.Create(context.Background(), ada, "old", 0)
			Expect(err).NotTo(HaveOccurred())
			_, err = tokens.Revoke(context.Background(), ada, t.ID)
			Expect(err).NotTo(HaveOccurred())
			return basic(text)
		}),
	)
})
