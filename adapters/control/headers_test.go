package control_test

import (
	"context"
	"io"
	"io/fs"
	"net/http"
	"net/http/httptest"
	"regexp"
	"strings"

	"connectrpc.com/connect"
	. "github.com/onsi/ginkgo/v2"
	. "github.com/onsi/gomega"

	"keygate/adapters/control"
	"keygate/console"
	"keygate/domain/access"
	"keygate/domain/identity"
	controlv1 "keygate/gen/keygate/control/v1"
)

var _ = Describe("Security headers on the console and the control API", func() {
	admin := access.Principal{Identity: identity.Identity{UserID: "root"}, Role: access.Admin}
	member := access.Principal{Identity: identity.Identity{UserID: "ada"}, Role: access.Member}
	expectHeaders := func(h http.Header) {
		GinkgoHelper()
		Expect(h.Get("Content-Security-Policy")).To(Equal(control.ContentSecurityPolicy))
		Expect(h.Get("X-Frame-Options")).To(Equal("DENY"))
		Expect(h.Get("X-Content-Type-Options")).To(Equal("nosniff"))
		Expect(h.Get("Referrer-Policy")).To(Equal("no-referrer"))
	}
	get := func(a *api, path string) *http.Response {
		resp, err := a.server.Client().Get(a.server.URL + path)
		Expect(err).NotTo(HaveOccurred())
		_, _ = io.Copy(io.Discard, resp.Body)
		resp.Body.Close()
		return resp
	}

	It("forbids framing and inline code in the policy itself", func() {
		Expect(control.ContentSecurityPolicy).To(ContainSubstring("frame-ancestors 'none'"))
		Expect(control.ContentSecurityPolicy).To(ContainSubstring("script-src 'self'"))
		Expect(control.ContentSecurityPolicy).NotTo(ContainSubstring("unsafe-"))
	})

	DescribeTable("sets them on every kind of answer, to an administrator and a member",
		func(p access.Principal) {
			a := newAPIWith(as(p))
			expectHeaders(get(a, "/").Header)
			expectHeaders(get(a, "/assets/app-1.js").Header)
			expectHeaders(get(a, "/calls/abc").Header)
			status, _ := post(a, "/keygate.control.v1.SettingService/GetSettings")
			Expect(status).To(Equal(http.StatusOK))
			resp, err := a.server.Client().Post(a.server.URL+"/keygate.control.v1.ModelService/CreateModel", "application/json", strings.NewReader("{}"))
			Expect(err).NotTo(HaveOccurred())
			resp.Body.Close()
			Expect(resp.StatusCode).To(BeNumerically(">=", 400), "refused: invalid, or not an administrator")
			expectHeaders(resp.Header)
		},
		Entry("as an administrator", admin),
		Entry("as a member", member),
	)

	It("sets them on the guard's refusals too", func() {
		deny := func(http.Handler) http.Handler {
			return http.HandlerFunc(func(w http.ResponseWriter, _ *http.Request) { http.Error(w, "log in first", http.StatusUnauthorized) })
		}
		a := newAPIWith(deny)
		resp := get(a, "/")
		Expect(resp.StatusCode).To(Equal(http.StatusUnauthorized))
		expectHeaders(resp.Header)
		_, err := a.setting.GetSettings(context.Background(), connect.NewRequest(&controlv1.GetSettingsRequest{}))
		Expect(err).To(HaveConnectCode(connect.CodeUnauthenticated))
	})

	Describe("the built console (console/dist) under that policy", func() {
		var page string
		BeforeEach(func() {
			mux := http.NewServeMux()
			for p, h := range control.Routes(control.Options{Console: console.Dist(), Guard: as(admin)}) {
				mux.Handle(p, h)
			}
			srv := httptest.NewServer(mux)
			DeferCleanup(srv.Close)
			resp, err := srv.Client().Get(srv.URL + "/")
			Expect(err).NotTo(HaveOccurred())
			defer resp.Body.Close()
			expectHeaders(resp.Header)
			b, err := io.ReadAll(resp.Body)
			Expect(err).NotTo(HaveOccurred())
			page = string(b)
		})

		It("has no inline script, style or event handler, which script-src and style-src 'self' would block", func() {
			for _, tag := range regexp.MustCompile(`(?is)<script\b[^>]*>`).FindAllString(page, -1) {
				Expect(tag).To(MatchRegexp(`\bsrc=`), "inline script: %s", tag)
			}
			Expect(page).NotTo(MatchRegexp(`(?i)<style\b`))
			Expect(page).NotTo(MatchRegexp(`(?i)\sstyle=`))
			Expect(page).NotTo(MatchRegexp(`(?i)\son[a-z]+=`))
		})

		It("loads its script and stylesheet from its own origin", func() {
			refs := regexp.MustCompile(`(?i)\b(?:src|href)="([^"]*)"`).FindAllStringSubmatch(page, -1)
			Expect(refs).NotTo(BeEmpty())
			for _, r := range refs {
				Expect(r[1]).To(MatchRegexp(`^/[^/]`), "same-origin path: %s", r[1])
			}
		})

		It("needs no eval, which script-src without 'unsafe-eval' blocks", func() {
			scripts, err := fs.Glob(console.Dist(), "assets/*.js")
			Expect(err).NotTo(HaveOccurred())
			Expect(scripts).NotTo(BeEmpty())
			for _, name := range scripts {
				b, err := fs.ReadFile(console.Dist(), name)
				Expect(err).NotTo(HaveOccurred())
				Expect(string(b)).NotTo(MatchRegexp(`\beval\(|new Function\(`), name)
			}
		})
	})
})
