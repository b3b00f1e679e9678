package app_test

import (
	"context"
	"io"
	"net/http"
	"net/http/httptest"
	"net/netip"

	. "github.com/onsi/ginkgo/v2"
	. "github.com/onsi/gomega"
	"go.uber.org/zap"

	"keygate/adapters/auth"
	"keygate/app"
	"keygate/app/config"
)

// accountServer serves app.NewAccountRoutes as Keygate composes them, with
// console sign-in in mode and cfg's metrics token.
func accountServer(mode auth.Mode, cfg config.Config) *httptest.Server {
	ctx := context.Background()
	dir := app.DataDir(GinkgoT().TempDir())
	cfg.DataDir = string(dir)
	store, closeStore, err := app.OpenStore(ctx, cfg, zap.NewNop(), dir)
	Expect(err).NotTo(HaveOccurred())
	DeferCleanup(closeStore)
	box, err := app.OpenSecretBox(cfg, dir)
	Expect(err).NotTo(HaveOccurred())
	ac := auth.Config{Mode: mode}
	if mode == auth.ModeHeader {
		ac.UserHeader, ac.TrustedProxies = "X-Forwarded-User", []netip.Prefix{netip.MustParsePrefix("192.0.2.1/32")}
	}
	gate, err := auth.New(ctx, ac, box, zap.NewNop())
	Expect(err).NotTo(HaveOccurred())
	auditor := app.NewAuditor(store)
	mux := http.NewServeMux()
	for p, h := range app.NewAccountRoutes(cfg, gate, app.NewTokens(cfg, store, auditor), auditor, app.NewMetrics()) {
		mux.Handle(p, h)
	}
	srv := httptest.NewServer(mux)
	DeferCleanup(srv.Close)
	return srv
}

// scrape gets /metrics with authorization (empty: none).
func scrape(srv *httptest.Server, authorization string) (int, string) {
	req, err := http.NewRequest(http.MethodGet, srv.URL+"/metrics", nil)
	Expect(err).NotTo(HaveOccurred())
	if authorization != "" {
		req.Header.Set("Authorization", authorization)
	}
	resp, err := srv.Client().Do(req)
	Expect(err).NotTo(HaveOccurred())
	defer resp.Body.Close()
	b, _ := io.ReadAll(resp.Body)
	return resp.StatusCode, string(b)
}

var _ = Describe("GET /metrics", func() {
	It("is closed in company mode without KEYGATE_METRICS_TOKEN, saying which variable opens it", func() {
		status, body := scrape(accountServer(auth.ModeHeader, config.Config{}), "")
		Expect(status).To(Equal(http.StatusForbidden))
		Expect(body).To(ContainSubstring("KEYGATE_METRICS_TOKEN"))
		Expect(body).NotTo(ContainSubstring("keygate_"))
	})

	It("answers only the scrape token in company mode when KEYGATE_METRICS_TOKEN is set", func() {
		srv := accountServer(auth.ModeHeader, config.Config{MetricsToken: "scrape-secret"})
		status, _ := scrape(srv, "")
		Expect(status).To(Equal(http.StatusUnauthorized))
		status, body := scrape(srv, "Bearer scrape-secret")
		Expect(status).To(Equal(http.StatusOK))
		Expect(body).To(ContainSubstring("keygate_"))
	})

	It("stays open on a laptop (local sign-in), where the listener is loopback", func() {
		status, body := scrape(accountServer(auth.ModeLocal, config.Config{}), "")
		Expect(status).To(Equal(http.StatusOK))
		Expect(body).To(ContainSubstring("keygate_"))
	})
})

var _ = Describe("Sign-in and account routes", func() {
	It("carry the console's security headers", func() {
		srv := accountServer(auth.ModeHeader, config.Config{})
		resp, err := srv.Client().Get(srv.URL + "/auth/me")
		Expect(err).NotTo(HaveOccurred())
		resp.Body.Close()
		Expect(resp.Header.Get("Content-Security-Policy")).To(ContainSubstring("frame-ancestors 'none'"))
		Expect(resp.Header.Get("X-Frame-Options")).To(Equal("DENY"))
		Expect(resp.Header.Get("X-Content-Type-Options")).To(Equal("nosniff"))
		Expect(resp.Header.Get("Referrer-Policy")).To(Equal("no-referrer"))
	})
})
