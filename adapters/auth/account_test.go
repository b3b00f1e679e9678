package auth_test

import (
	"context"
	"crypto/rand"
	"encoding/json"
	"io"
	"net/http"
	"net/http/httptest"
	"net/netip"
	"strings"

	. "github.com/onsi/ginkgo/v2"
	. "github.com/onsi/gomega"
	"go.uber.org/zap"

	"keygate/adapters/auth"
	"keygate/adapters/sqlite"
	"keygate/app/company"
	"keygate/app/run/runtest"
	"keygate/domain/access"
)

var _ = Describe("Gate.AccountRoutes", func() {
	var site *httptest.Server
	BeforeEach(func() {
		g, err := auth.New(context.Background(), auth.Config{
			Mode: auth.ModeHeader, UserHeader: "X-User", GroupsHeader: "X-Groups",
			TrustedProxies: []netip.Prefix{netip.MustParsePrefix("127.0.0.0/8")},
			Roles:          access.RoleMap{AdminGroups: []string{"admins"}},
		}, newBox(), zap.NewNop())
		Expect(err).NotTo(HaveOccurred())
		db, err := sqlite.Open(context.Background(), GinkgoT().TempDir(), zap.NewNop())
		Expect(err).NotTo(HaveOccurred())
		DeferCleanup(db.Close)
		st, clock := sqlite.NewStore(db), runtest.NewClock()
		auditor := company.NewAuditor(st.Audit(), clock)
		tokens := company.NewTokens(st.Tokens(), clock, rand.Reader)
		tokens.AuditWith(auditor)
		mux := http.NewServeMux()
		for p, h := range g.AccountRoutes(tokens, auditor) {
			mux.Handle(p, h)
		}
		site = httptest.NewServer(mux)
		DeferCleanup(site.Close)
	})

	// do sends a request as user (in groups) and returns status, headers and body.
	do := func(user, groups, method, path, contentType, body string) (int, http.Header, string) {
		req, _ := http.NewRequest(method, site.URL+path, strings.NewReader(body))
		req.Header.Set("X-User", user)
		req.Header.Set("X-Groups", groups)
		if contentType != "" {
			req.Header.Set("Content-Type", contentType)
		}
		resp, err := http.DefaultClient.Do(req)
		Expect(err).NotTo(HaveOccurred())
		defer resp.Body.Close()
		b, _ := io.ReadAll(resp.Body)
		return resp.StatusCode, resp.Header, string(b)
	}
	create := func(user string) (id, secret string) {
		status, header, body := do(user, "", "POST", "/auth/tokens", "application/json", `{"name":"laptop","ttlDays":30}`)
		Expect(status).To(Equal(http.StatusCreated))
		Expect(header.Get("Cache-Control")).To(Equal("no-store"))
		var out struct {
			Token  struct{ ID string }
			Secret string
		}
		Expect(json.Unmarshal([]byte(body), &out)).To(Succeed())
		return out.Token.ID, out.Secret
	}

	It("creates a token shown once and lists it afterwards without its secret", func() {
		_, secret := create("ada")
		Expect(secret).To(HavePrefix("kg_"))
		status, _, body := do("ada", "", "GET", "/auth/tokens", "", "")
		Expect(status).To(Equal(http.StatusOK))
		Expect(body).To(ContainSubstring(`"name":"laptop"`))
		Expect(body).To(ContainSubstring(`"expiresAt"`))
		Expect(body).NotTo(ContainSubstring(secret[3:]))
	})

	It("refuses a creation that is not a JSON request", func() {
		status, _, _ := do("ada", "", "POST", "/auth/tokens", "text/plain", `{"name":"x"}`)
		Expect(status).To(Equal(http.StatusUnsupportedMediaType))
	})

	It("answers another member's revocation with 404 and the owner's with 204", func() {
		id, _ := create("ada")
		status, _, _ := do("bob", "", "DELETE", "/auth/tokens/"+id, "", "")
		Expect(status).To(Equal(http.StatusNotFound))
		status, _, _ = do("ada", "", "DELETE", "/auth/tokens/"+id, "", "")
		Expect(status).To(Equal(http.StatusNoContent))
		_, _, body := do("ada", "", "GET", "/auth/tokens", "", "")
		Expect(body).To(ContainSubstring(`"revokedAt"`))
	})

	It("shows every user's tokens and the audit log to administrators only", func() {
		id, _ := create("ada")
		status, _, _ := do("bob", "", "GET", "/auth/tokens?all=1", "", "")
		Expect(status).To(Equal(http.StatusForbidden))
		status, _, _ = do("bob", "", "GET", "/auth/audit", "", "")
		Expect(status).To(Equal(http.StatusForbidden))

		status, _, body := do("root", "admins", "GET", "/auth/tokens?all=1", "", "")
		Expect(status).To(Equal(http.StatusOK))
		Expect(body).To(ContainSubstring(`"ownerId":"ada"`))
		status, _, _ = do("root", "admins", "DELETE", "/auth/tokens/"+id, "", "")
		Expect(status).To(Equal(http.StatusNoContent))
		status, _, body = do("root", "admins", "GET", "/auth/audit", "", "")
		Expect(status).To(Equal(http.StatusOK))
		Expect(body).To(ContainSubstring(`"action":"token.revoke"`))
		Expect(body).To(ContainSubstring(`"actorId":"root"`))
	})
})
