package auth_test

import (
	"context"
	"encoding/json"
	"net/http"
	"net/http/httptest"
	"net/netip"

	. "github.com/onsi/ginkgo/v2"
	. "github.com/onsi/gomega"
	"go.uber.org/zap"

	"keygate/adapters/auth"
	"keygate/adapters/secret"
	"keygate/domain/access"
)

// whoami answers the principal the guard put on the context.
var whoami = http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
	p, ok := access.FromContext(r.Context())
	Expect(ok).To(BeTrue(), "the guard lets no request through without a principal")
	_ = json.NewEncoder(w).Encode(map[string]string{"user": p.UserID, "name": p.Name, "role": string(p.Role)})
})

func newBox() *secret.Ring {
	r, err := secret.NewRing(secret.NewKey())
	Expect(err).NotTo(HaveOccurred())
	return r
}

// serve runs one request through g.Guard(whoami) from peer to host.
func serve(g *auth.Gate, peer, host string, headers map[string]string) *httptest.ResponseRecorder {
	req := httptest.NewRequest(http.MethodGet, "http://"+host+"/keygate.control.v1.CallService/ListCalls", nil)
	req.RemoteAddr, req.Host = peer, host
	for k, v := range headers {
		req.Header.Set(k, v)
	}
	rec := httptest.NewRecorder()
	g.Guard(whoami).ServeHTTP(rec, req)
	return rec
}

func body(rec *httptest.ResponseRecorder) map[string]string {
	var m map[string]string
	Expect(json.Unmarshal(rec.Body.Bytes(), &m)).To(Succeed())
	return m
}

var _ = Describe("Gate in local mode", func() {
	var g *auth.Gate
	BeforeEach(func() {
		var err error
		g, err = auth.New(context.Background(), auth.Config{Mode: auth.ModeLocal}, newBox(), zap.NewNop())
		Expect(err).NotTo(HaveOccurred())
	})

	It("serves a loopback peer as the local administrator without a login", func() {
		rec := serve(g, "127.0.0.1:50000", "127.0.0.1:8080", nil)
		Expect(rec.Code).To(Equal(http.StatusOK))
		Expect(body(rec)).To(HaveKeyWithValue("role", "admin"))
		Expect(body(rec)).To(HaveKeyWithValue("user", "local"))
	})

	It("is the mode of a configuration that names none", func() {
		zero, err := auth.New(context.Background(), auth.Config{}, newBox(), zap.NewNop())
		Expect(err).NotTo(HaveOccurred())
		Expect(zero.Mode()).To(Equal(auth.ModeLocal))
		Expect(serve(zero, "192.168.1.20:50000", "127.0.0.1:8080", nil).Code).To(Equal(http.StatusForbidden))
	})

	DescribeTable("refuses with 403",
		func(peer, host string, headers map[string]string) {
			Expect(serve(g, peer, host, headers).Code).To(Equal(http.StatusForbidden))
		},
		Entry("a peer on the network", "192.168.1.20:50000", "127.0.0.1:8080", nil),
		Entry("a loopback peer that names another host (DNS rebinding)", "127.0.0.1:50000", "evil.example:8080", nil),
		Entry("a request a local reverse proxy forwarded", "[::1]:50000", "localhost:8080", map[string]string{"X-Forwarded-For": "203.0.113.9"}),
	)
})

var _ = Describe("Gate in header mode", func() {
	var g *auth.Gate
	BeforeEach(func() {
		var err error
		g, err = auth.New(context.Background(), auth.Config{
			Mode: auth.ModeHeader, UserHeader: "X-Auth-User", NameHeader: "X-Auth-Email", GroupsHeader: "X-Auth-Groups",
			TrustedProxies: []netip.Prefix{netip.MustParsePrefix("10.0.0.0/8")},
			Roles:          access.RoleMap{AdminGroups: []string{"keygate-admins"}, MemberGroups: []string{"engineering"}},
		}, newBox(), zap.NewNop())
		Expect(err).NotTo(HaveOccurred())
	})

	DescribeTable("maps a trusted proxy's headers to a principal",
		func(groups, role string) {
			rec := serve(g, "10.1.2.3:4000", "keygate.corp", map[string]string{
				"X-Auth-User": "ada", "X-Auth-Email": "ada@corp.example", "X-Auth-Groups": groups})
			Expect(rec.Code).To(Equal(http.StatusOK))
			Expect(body(rec)).To(Equal(map[string]string{"user": "ada", "name": "ada@corp.example", "role": role}))
		},
		Entry("an admin group makes an administrator", "engineering, keygate-admins", "admin"),
		Entry("a member group makes a member", "engineering", "member"),
	)

	DescribeTable("refuses",
		func(peer string, headers map[string]string, status int) {
			Expect(serve(g, peer, "keygate.corp", headers).Code).To(Equal(status))
		},
		Entry("identity headers from a peer outside the trusted CIDRs (403)", "192.0.2.7:4000",
			map[string]string{"X-Auth-User": "ada", "X-Auth-Groups": "keygate-admins"}, http.StatusForbidden),
		Entry("a trusted proxy's request without a user (401)", "10.1.2.3:4000", map[string]string{}, http.StatusUnauthorized),
		Entry("a user in none of the admitted groups (403)", "10.1.2.3:4000",
			map[string]string{"X-Auth-User": "eve", "X-Auth-Groups": "sales"}, http.StatusForbidden),
	)
})

var _ = DescribeTable("New rejects a configuration that cannot work",
	func(cfg auth.Config) {
		_, err := auth.New(context.Background(), cfg, newBox(), zap.NewNop())
		Expect(err).To(MatchError(auth.ErrConfig))
	},
	Entry("an unknown mode", auth.Config{Mode: "ldap"}),
	Entry("header mode without trusted proxies", auth.Config{Mode: auth.ModeHeader, UserHeader: "X-User"}),
	Entry("oidc mode without a client id", auth.Config{Mode: auth.ModeOIDC, Issuer: "https://idp.example", RedirectURL: "https://kg/auth/callback"}),
)
