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
	"google.golang.org/protobuf/encoding/protojson"
	"google.golang.org/protobuf/proto"

	"keygate/adapters/auth"
	"keygate/adapters/sqlite"
	"keygate/app/company"
	"keygate/app/run/runtest"
	"keygate/domain/access"
	accountv1 "keygate/gen/keygate/account/v1"
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
		for p, h := range g.Routes() {
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

	// The routes' JSON is proto/keygate/account/v1 written by protojson,
	// and the console reads it with fromJson, which refuses an unknown
	// field: the messages are the whole contract. These specs pin what
	// protojson's defaults would otherwise change for the route's older
	// clients: names in camelCase, a 64-bit seq still a JSON number, an empty
	// optional field absent and a plain one present, and before/after as
	// the stored JSON itself.
	Describe("wire format", func() {
		// strict reads body as m the way the console does: a field the
		// message does not declare fails.
		strict := func(body string, m proto.Message) {
			GinkgoHelper()
			Expect(protojson.Unmarshal([]byte(body), m)).To(Succeed(), body)
		}
		keys := func(v any) []string {
			GinkgoHelper()
			m, ok := v.(map[string]any)
			Expect(ok).To(BeTrue(), "%v is an object", v)
			var out []string
			for k := range m {
				out = append(out, k)
			}
			return out
		}
		decode := func(body string) map[string]any {
			GinkgoHelper()
			var v map[string]any
			Expect(json.Unmarshal([]byte(body), &v)).To(Succeed(), body)
			return v
		}

		It("answers /auth/me with who the caller is", func() {
			status, header, body := do("ada", "", "GET", "/auth/me", "", "")
			Expect(status).To(Equal(http.StatusOK))
			Expect(header.Get("Content-Type")).To(Equal("application/json"))
			Expect(decode(body)).To(Equal(map[string]any{"userId": "ada", "name": "ada", "role": "member", "mode": "header"}))
			strict(body, &accountv1.Me{})
		})

		It("lists a token with its plain fields and only the optional ones it has", func() {
			id, _ := create("ada")
			status, _, body := do("ada", "", "GET", "/auth/tokens", "", "")
			Expect(status).To(Equal(http.StatusOK))
			list := decode(body)["tokens"].([]any)
			Expect(list).To(HaveLen(1))
			Expect(keys(list[0])).To(ConsistOf("id", "name", "hint", "ownerId", "ownerName", "createdAt", "expiresAt"),
				"never used nor revoked: no lastUsedAt, no revokedAt")
			Expect(list[0]).To(HaveKeyWithValue("id", id))
			Expect(list[0].(map[string]any)["createdAt"]).To(MatchRegexp(`^\d{4}-\d\d-\d\dT\d\d:\d\d:\d\dZ$`), "RFC 3339 to the second")
			strict(body, &accountv1.ListTokensResponse{})

			_, _, body = do("bob", "", "GET", "/auth/tokens", "", "")
			Expect(body).To(MatchJSON(`{"tokens":[]}`), "an empty list is [], not null or absent")
		})

		It("answers a creation with the token and its secret", func() {
			_, _, body := do("ada", "", "POST", "/auth/tokens", "application/json", `{"name":"ci","ttlDays":7,"note":"ignored"}`)
			Expect(keys(decode(body))).To(ConsistOf("token", "secret"))
			strict(body, &accountv1.CreateTokenResponse{})
		})

		It("refuses a lifetime that is not a whole, non-negative number of days", func() {
			for _, in := range []string{`{"name":"x","ttlDays":1.5}`, `{"name":"x","ttlDays":-1}`, `{"name":"x","ttlDays":4294967296}`, `{"name":`, ``} {
				status, _, _ := do("ada", "", "POST", "/auth/tokens", "application/json", in)
				Expect(status).To(Equal(http.StatusBadRequest), in)
			}
		})

		It("lists audit entries with seq a JSON number and before/after as the stored JSON", func() {
			id, _ := create("ada")
			status, _, _ := do("ada", "", "DELETE", "/auth/tokens/"+id, "", "")
			Expect(status).To(Equal(http.StatusNoContent))
			status, _, body := do("root", "admins", "GET", "/auth/audit", "", "")
			Expect(status).To(Equal(http.StatusOK))
			entries := decode(body)["entries"].([]any)
			Expect(entries).To(HaveLen(2))
			revoke, created := entries[0].(map[string]any), entries[1].(map[string]any)
			Expect(keys(revoke)).To(ConsistOf("seq", "at", "actorId", "actorName", "role", "action", "target", "before"))
			Expect(keys(created)).To(ConsistOf("seq", "at", "actorId", "actorName", "role", "action", "target", "after"))
			Expect(revoke["seq"]).To(BeNumerically(">", created["seq"]))
			Expect(revoke["before"]).To(HaveKeyWithValue("name", "laptop"), "the stored JSON object, not a string or a Value wrapper")
			Expect(created["after"]).To(Equal(revoke["before"]))
			strict(body, &accountv1.ListAuditEntriesResponse{})
		})
	})
})
