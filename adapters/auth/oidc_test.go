package auth_test

import (
	"context"
	"encoding/json"
	"io"
	"net/http"
	"net/http/cookiejar"
	"net/http/httptest"
	"net/url"
	"strings"

	. "github.com/onsi/ginkgo/v2"
	. "github.com/onsi/gomega"
	"go.uber.org/zap"

	"keygate/adapters/auth"
	"keygate/adapters/sqlite"
	"keygate/domain/access"
	"keygate/ports"
)

var _ = Describe("Gate in OIDC mode", func() {
	var (
		idp     *fakeIDP
		site    *httptest.Server
		client  *http.Client
		members ports.MembershipStore
	)
	BeforeEach(func() {
		idp = newFakeIDP()
		idp.Claims = map[string]any{"sub": "u-ada", "email": "ada@corp.example", "groups": []string{"engineering"}}
		var handler http.Handler
		site = httptest.NewServer(http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) { handler.ServeHTTP(w, r) }))
		DeferCleanup(site.Close)
		// New's context bounds discovery only: every sign-in below runs
		// after it was cancelled.
		discovery, cancelDiscovery := context.WithCancel(context.Background())
		g, err := auth.New(discovery, auth.Config{
			Mode: auth.ModeOIDC, Issuer: idp.URL, ClientID: "keygate", ClientSecret: "s3cret",
			RedirectURL: site.URL + "/auth/callback",
			Roles:       access.RoleMap{AdminGroups: []string{"keygate-admins"}, MemberGroups: []string{"engineering"}},
		}, newBox(), zap.NewNop())
		cancelDiscovery()
		Expect(err).NotTo(HaveOccurred())
		db, err := sqlite.Open(context.Background(), GinkgoT().TempDir(), zap.NewNop())
		Expect(err).NotTo(HaveOccurred())
		DeferCleanup(db.Close)
		g.RevokeSessionsWith(sqlite.NewStore(db).Sessions())
		members = sqlite.NewStore(db).Memberships()
		g.RecordGroupsWith(members)
		mux := http.NewServeMux()
		for p, h := range g.Routes() {
			mux.Handle(p, h)
		}
		mux.Handle("/", g.Guard(whoami))
		handler = mux
		jar, _ := cookiejar.New(nil)
		client = &http.Client{Jar: jar}
	})

	// browse opens path as a browser would, following every redirect.
	browse := func(path string) (*http.Response, string) {
		req, _ := http.NewRequest(http.MethodGet, site.URL+path, nil)
		req.Header.Set("Accept", "text/html")
		resp, err := client.Do(req)
		Expect(err).NotTo(HaveOccurred())
		defer resp.Body.Close()
		b, _ := io.ReadAll(resp.Body)
		return resp, string(b)
	}
	api := func() int {
		resp, err := client.Post(site.URL+"/keygate.control.v1.CallService/ListCalls", "application/json", strings.NewReader("{}"))
		Expect(err).NotTo(HaveOccurred())
		_ = resp.Body.Close()
		return resp.StatusCode
	}
	sessionCookie := func() *http.Cookie {
		u, _ := url.Parse(site.URL)
		for _, c := range client.Jar.Cookies(u) {
			if c.Name == auth.SessionCookie {
				return c
			}
		}
		return nil
	}

	It("signs a browser in with the code flow and PKCE and brings it back to the page it asked for", func() {
		resp, b := browse("/calls?model=gpt")
		Expect(resp.StatusCode).To(Equal(http.StatusOK))
		Expect(resp.Request.URL.RequestURI()).To(Equal("/calls?model=gpt"))
		var who map[string]string
		Expect(json.Unmarshal([]byte(b), &who)).To(Succeed())
		Expect(who).To(Equal(map[string]string{"user": "u-ada", "name": "ada@corp.example", "role": "member"}))
		Expect(idp.Methods).To(Equal([]string{"S256"}))
		Expect(api()).To(Equal(http.StatusOK), "the session cookie authenticates API calls")
	})

	It("makes a user in an admin group an administrator", func() {
		idp.Claims["groups"] = []string{"engineering", "keygate-admins"}
		_, b := browse("/")
		Expect(b).To(ContainSubstring(`"role":"admin"`))
	})

	It("answers /auth/me with the signed-in user", func() {
		browse("/")
		_, b := browse("/auth/me")
		Expect(b).To(ContainSubstring(`"userId":"u-ada"`))
		Expect(b).To(ContainSubstring(`"mode":"oidc"`))
	})

	It("answers an API call without a session with 401 instead of a redirect", func() {
		Expect(api()).To(Equal(http.StatusUnauthorized))
	})

	DescribeTable("refuses the sign-in and sets no session",
		func(prepare func(), status int) {
			prepare()
			resp, _ := browse("/")
			Expect(resp.StatusCode).To(Equal(status))
			Expect(sessionCookie()).To(BeNil())
		},
		Entry("a user in none of the admitted groups", func() { idp.Claims["groups"] = []string{"sales"} }, http.StatusForbidden),
		Entry("a provider that refuses the user", func() { idp.Refuse = true }, http.StatusForbidden),
		Entry("an ID token with another nonce", func() { idp.WrongNonce = true }, http.StatusForbidden),
		Entry("an ID token without the user claim", func() { delete(idp.Claims, "sub") }, http.StatusForbidden),
	)

	It("records the groups of each sign-in, refused or not, for the proxy's membership check", func() {
		idp.Claims["groups"] = []string{"sales"}
		resp, _ := browse("/")
		Expect(resp.StatusCode).To(Equal(http.StatusForbidden))
		groups, _, err := members.Groups(context.Background(), "u-ada")
		Expect(err).NotTo(HaveOccurred())
		Expect(groups).To(Equal([]string{"sales"}))
		idp.Claims["groups"] = []string{"engineering"}
		resp, _ = browse("/")
		Expect(resp.StatusCode).To(Equal(http.StatusOK))
		groups, _, err = members.Groups(context.Background(), "u-ada")
		Expect(err).NotTo(HaveOccurred())
		Expect(groups).To(Equal([]string{"engineering"}))
	})

	It("refuses a callback whose state was not issued to this browser", func() {
		resp, _ := browse("/auth/callback?code=x&state=forged")
		Expect(resp.StatusCode).To(Equal(http.StatusBadRequest))
	})

	It("sets an HttpOnly, SameSite=Lax session cookie, not Secure only because the peer is loopback", func() {
		req, _ := http.NewRequest(http.MethodGet, site.URL+"/", nil)
		req.Header.Set("Accept", "text/html")
		noFollow := &http.Client{Jar: client.Jar, CheckRedirect: func(r *http.Request, _ []*http.Request) error {
			if r.URL.Path == "/auth/callback" {
				return http.ErrUseLastResponse
			}
			return nil
		}}
		resp, err := noFollow.Do(req)
		Expect(err).NotTo(HaveOccurred())
		_ = resp.Body.Close()
		once := &http.Client{Jar: client.Jar, CheckRedirect: func(*http.Request, []*http.Request) error { return http.ErrUseLastResponse }}
		resp, err = once.Get(resp.Header.Get("Location"))
		Expect(err).NotTo(HaveOccurred())
		_ = resp.Body.Close()
		var set *http.Cookie
		for _, c := range resp.Cookies() {
			if c.Name == auth.SessionCookie {
				set = c
			}
		}
		Expect(set).NotTo(BeNil())
		Expect(set.HttpOnly).To(BeTrue())
		Expect(set.SameSite).To(Equal(http.SameSiteLaxMode))
		Expect(set.Secure).To(BeFalse())
		Expect(set.Value).NotTo(ContainSubstring("u-ada"), "the cookie is sealed, not readable")
	})

	It("refuses a session cookie that was tampered with", func() {
		browse("/")
		c := sessionCookie()
		Expect(c).NotTo(BeNil())
		u, _ := url.Parse(site.URL)
		c.Value = c.Value[:len(c.Value)-2] + "AA"
		client.Jar.SetCookies(u, []*http.Cookie{c})
		Expect(api()).To(Equal(http.StatusUnauthorized))
	})

	It("signs out: the session cookie is cleared and API calls are refused again", func() {
		browse("/")
		Expect(api()).To(Equal(http.StatusOK))
		resp, err := client.Post(site.URL+"/auth/logout", "", nil)
		Expect(err).NotTo(HaveOccurred())
		_ = resp.Body.Close()
		Expect(resp.StatusCode).To(Equal(http.StatusOK))
		Expect(api()).To(Equal(http.StatusUnauthorized))
	})

	It("revokes the session at logout, so a copy of its cookie is refused too", func() {
		browse("/")
		stolen := sessionCookie()
		Expect(stolen).NotTo(BeNil())
		resp, err := client.Post(site.URL+"/auth/logout", "", nil)
		Expect(err).NotTo(HaveOccurred())
		_ = resp.Body.Close()
		u, _ := url.Parse(site.URL)
		client.Jar.SetCookies(u, []*http.Cookie{stolen})
		Expect(api()).To(Equal(http.StatusUnauthorized))

		By("leaving a new sign-in unaffected")
		browse("/")
		Expect(api()).To(Equal(http.StatusOK))
	})
})

var _ = Describe("Gate in OIDC mode, against a provider that answers without end", func() {
	It("refuses a discovery document over 1 MiB instead of reading it whole", func() {
		idp := httptest.NewServer(http.HandlerFunc(func(w http.ResponseWriter, _ *http.Request) {
			w.Header().Set("Content-Type", "application/json")
			_, _ = io.WriteString(w, `{"issuer":"`+strings.Repeat("x", 2<<20)+`"}`)
		}))
		DeferCleanup(idp.Close)
		_, err := auth.New(context.Background(), auth.Config{
			Mode: auth.ModeOIDC, Issuer: idp.URL, ClientID: "keygate", ClientSecret: "s3cret", RedirectURL: "http://127.0.0.1/auth/callback",
			Roles: access.RoleMap{MemberGroups: []string{"engineering"}},
		}, newBox(), zap.NewNop())
		Expect(err).To(MatchError(ContainSubstring("exceeds 1048576 bytes")))
	})
})
