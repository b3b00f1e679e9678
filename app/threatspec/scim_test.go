package threatspec_test

import (
	"bufio"
	"crypto/tls"
	"io"
	"net"
	"net/http"
	"strings"
	"time"

	. "github.com/onsi/ginkgo/v2"
	. "github.com/onsi/gomega"

	"keygate/adapters/pgtest"
	"keygate/adapters/provider/providertest"
	"keygate/adapters/secret"
	"keygate/app/config"
)

// scimToken is the bearer token the identity provider was configured with.
const scimToken = "scim-0123456789abcdef0123456789abcdef-token"

// withSCIM turns SCIM provisioning on.
func withSCIM(c *config.Config) { c.Auth.SCIMToken = scimToken }

// scimCall sends one SCIM request to base with the Authorization header
// auth (none when empty) and returns the status and body.
func scimCall(base, auth, method, path, body string) (int, string) {
	GinkgoHelper()
	req, err := http.NewRequest(method, base+"/scim/v2"+path, strings.NewReader(body))
	Expect(err).NotTo(HaveOccurred())
	if auth != "" {
		req.Header.Set("Authorization", auth)
	}
	req.Header.Set("Content-Type", "application/scim+json")
	resp, err := http.DefaultClient.Do(req)
	Expect(err).NotTo(HaveOccurred())
	defer resp.Body.Close()
	raw, _ := io.ReadAll(io.LimitReader(resp.Body, 64<<10))
	return resp.StatusCode, string(raw)
}

const scimUser = `{"schemas":["urn:ietf:params:scim:schemas:core:2.0:User"],"userName":"mallory@corp.test","active":true}`

var _ = Describe("Threat 27: a member provisions, deactivates or regroups users through SCIM, or outlives their deactivation", func() {
	It("refuses SCIM to a member's gateway token, to the console's signed-in identities (an administrator's too), and to a wrong token", func() {
		k := startKeygate(withSCIM)
		for _, auth := range []string{
			"",
			"Bearer " + k.memberToken,
			basic(k.memberToken),
			"Bearer " + scimToken[:len(scimToken)-1],
			"Bearer " + scimToken + "x",
			"Basic " + scimToken,
			"Bearer",
		} {
			status, raw := scimCall(k.Base, auth, http.MethodPost, "/Users", scimUser)
			Expect(status).To(Equal(http.StatusUnauthorized), "%q: %s", auth, raw)
			Expect(raw).NotTo(ContainSubstring(scimToken))
		}
		By("the signed-in administrator's and member's identities, forwarded by the authenticating proxy")
		for _, u := range []user{root, mallory} {
			status, raw := k.do(u, http.MethodGet, "/scim/v2/Users", "", nil)
			Expect(status).To(Equal(http.StatusUnauthorized), "%s: %s", u.id, raw)
		}
		status, raw := scimCall(k.Base, "Bearer "+scimToken, http.MethodGet, "/Users", "")
		Expect(status).To(Equal(http.StatusOK), raw)
		Expect(raw).To(ContainSubstring(`"totalResults":0`), "nothing was provisioned by the refused requests")
	})

	It("leaves SCIM off without a token", func() {
		k := startKeygate()
		status, raw := scimCall(k.Base, "Bearer "+scimToken, http.MethodPost, "/Users", scimUser)
		Expect(status).To(BeNumerically(">=", 400), "the console's sign-in gate answers the path: %s", raw)
		Expect(raw).NotTo(ContainSubstring("mallory@corp.test"))
	})

	It("cuts a deactivated user's open intercepted connection on another replica within seconds", func(ctx SpecContext) {
		db, err := pgtest.New(ctx)
		Expect(err).NotTo(HaveOccurred(), "these specs need a PostgreSQL server and never skip")
		DeferCleanup(db.Close)
		provider := providertest.NewServer()
		DeferCleanup(provider.Close)
		key := secret.NewKey()
		caCert, caKey := companyCA()
		replica := func() *company {
			cfg := replicaConfig(db.DSN, key, caCert, caKey, provider)
			withSCIM(&cfg)
			return runCompany(cfg)
		}
		a, b := replica(), replica()

		By("the identity provider provisioning mallory through replica B; mallory tunnelling through replica A")
		status, raw := scimCall(b.Base, "Bearer "+scimToken, http.MethodPost, "/Users", scimUser)
		Expect(status).To(Equal(http.StatusCreated), raw)
		id := between(raw, `"id":"`, `"`)
		Expect(id).NotTo(BeEmpty(), raw)
		_, token := a.newToken(mallory.id)
		conn, err := net.DialTimeout("tcp", a.Proxy, 5*time.Second)
		Expect(err).NotTo(HaveOccurred())
		DeferCleanup(func() { _ = conn.Close() })
		Expect(rawConnect(conn, "api2.cursor.sh:443", token).StatusCode).To(Equal(http.StatusOK))
		tc := tls.Client(conn, &tls.Config{RootCAs: a.InstallationCA(), ServerName: "api2.cursor.sh"})
		Expect(tc.HandshakeContext(ctx)).To(Succeed())
		br := bufio.NewReader(tc)
		answer, err := serverConfig(tc, br)
		Expect(err).NotTo(HaveOccurred())
		Expect(answer).To(HaveHTTPStatus(http.StatusOK), "a served request keeps the connection open for minutes")

		By("the identity provider deactivating mallory on replica B, as Entra ID does")
		status, raw = scimCall(b.Base, "Bearer "+scimToken, http.MethodPatch, "/Users/"+id,
			`{"schemas":["urn:ietf:params:scim:api:messages:2.0:PatchOp"],"Operations":[{"op":"Replace","path":"active","value":"False"}]}`)
		Expect(status).To(Equal(http.StatusOK), raw)

		By("replica A closing the tunnel and refusing the token")
		closedByProxy(tc, br, 8*time.Second)
		c2, err := net.DialTimeout("tcp", a.Proxy, 5*time.Second)
		Expect(err).NotTo(HaveOccurred())
		defer c2.Close()
		Expect(rawConnect(c2, "api2.cursor.sh:443", token).StatusCode).To(Equal(http.StatusProxyAuthRequired))
		status, _ = a.as(mallory.id, "staff", http.MethodGet, "/auth/me", nil)
		Expect(status).To(Equal(http.StatusForbidden), "the console on replica A refuses her too")
	}, SpecTimeout(120*time.Second))
})

// between returns the text of s between the first from and the next to.
func between(s, from, to string) string {
	_, rest, ok := strings.Cut(s, from)
	if !ok {
		return ""
	}
	v, _, _ := strings.Cut(rest, to)
	return v
}
