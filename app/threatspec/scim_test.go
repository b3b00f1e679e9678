package threatspec_test

import (
	"bufio"
	"bytes"
	"crypto/tls"
	"io"
	"net"
	"net/http"
	"strings"
	"time"

	. "github.com/onsi/ginkgo/v2"
	. "github.com/onsi/gomega"
	"google.golang.org/protobuf/encoding/protojson"
	"google.golang.org/protobuf/proto"

	"keygate/adapters/pgtest"
	"keygate/adapters/provider/providertest"
	"keygate/adapters/secret"
	"keygate/app/config"
	controlv1 "keygate/gen/keygate/control/v1"
	"keygate/gen/keygate/control/v1/controlv1connect"
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

	It("ends a deactivated user's open compatible-API stream within seconds, and the provider call with it", func(ctx SpecContext) {
		k := startKeygate(withSCIM)
		status, raw := scimCall(k.Base, "Bearer "+scimToken, http.MethodPost, "/Users", scimUser)
		Expect(status).To(Equal(http.StatusCreated), raw)
		id := between(raw, `"id":"`, `"`)

		By("mallory streaming an answer the provider holds open")
		steps := providertest.Events(providertest.ChatSSE(providertest.Turn{ID: "c1", Text: []string{"Hel", "lo"}}))
		k.provider.Enqueue(providertest.Reply{Steps: append(steps[:2:2], providertest.Step{Stall: true})})
		req, err := http.NewRequestWithContext(ctx, http.MethodPost, k.Base+"/v1/chat/completions",
			strings.NewReader(`{"model":"Fake GPT","stream":true,"messages":[{"role":"user","content":"hi"}]}`))
		Expect(err).NotTo(HaveOccurred())
		req.Header.Set("Content-Type", "application/json")
		req.Header.Set("Authorization", "Bearer "+k.memberToken)
		resp, err := http.DefaultClient.Do(req)
		Expect(err).NotTo(HaveOccurred())
		defer resp.Body.Close()
		Expect(resp.StatusCode).To(Equal(http.StatusOK))
		ended := make(chan struct{})
		go func() {
			defer close(ended)
			_, _ = io.Copy(io.Discard, resp.Body)
		}()
		Consistently(ended).WithTimeout(2*time.Second).ShouldNot(BeClosed(), "the stream stays open while the provider holds it")

		By("the identity provider deactivating mallory")
		status, raw = scimCall(k.Base, "Bearer "+scimToken, http.MethodPatch, "/Users/"+id,
			`{"schemas":["urn:ietf:params:scim:api:messages:2.0:PatchOp"],"Operations":[{"op":"replace","value":{"active":false}}]}`)
		Expect(status).To(Equal(http.StatusOK), raw)
		Eventually(ended).WithTimeout(8 * time.Second).Should(BeClosed())
		Eventually(k.provider.Gone()).WithTimeout(5*time.Second).Should(Receive(), "the provider call was cancelled too")
	}, SpecTimeout(60*time.Second))

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

// serviceKey creates a service account as root with role and returns its
// id and key.
func (s *stack) serviceKey(role controlv1.ServiceAccountRole) (string, string) {
	GinkgoHelper()
	var created controlv1.CreateServiceAccountResponse
	s.must(root, controlv1connect.ServiceAccountServiceCreateServiceAccountProcedure,
		&controlv1.CreateServiceAccountRequest{Name: "deploy pipeline", Role: role, Days: 30}, &created)
	Expect(created.GetKey()).To(HavePrefix("kg_"))
	return created.GetServiceAccount().GetId(), created.GetKey()
}

// withKey calls procedure with the Connect JSON protocol, authenticated
// by key alone, and returns the status and the answer.
func (s *stack) withKey(key, procedure string, req proto.Message) (int, string) {
	GinkgoHelper()
	body := []byte("{}")
	if req != nil {
		var err error
		body, err = protojson.Marshal(req)
		Expect(err).NotTo(HaveOccurred())
	}
	r, err := http.NewRequest(http.MethodPost, s.Base+procedure, bytes.NewReader(body))
	Expect(err).NotTo(HaveOccurred())
	r.Header.Set("Content-Type", "application/json")
	r.Header.Set("Authorization", "Bearer "+key)
	resp, err := http.DefaultClient.Do(r)
	Expect(err).NotTo(HaveOccurred())
	defer resp.Body.Close()
	raw, _ := io.ReadAll(io.LimitReader(resp.Body, 256<<10))
	return resp.StatusCode, string(raw)
}

var _ = Describe("Threat 27: a service account's key writes beyond its role, or outlives its revocation", func() {
	var k *stack
	BeforeEach(func() { k = startKeygate() })

	newModel := func() *controlv1.CreateModelRequest {
		return &controlv1.CreateModelRequest{Settings: &controlv1.ModelSettings{DisplayName: "Pipeline GPT",
			ProviderKind: controlv1.ProviderKind_PROVIDER_KIND_OPENAI_CHAT, BaseUrl: k.provider.URL, ModelId: "fake-gpt"},
			ApiKey: "sk-pipeline-0123456789", Enabled: true}
	}

	It("lets a read-only key read configuration and refuses it every write, conversations and call details", func() {
		_, key := k.serviceKey(controlv1.ServiceAccountRole_SERVICE_ACCOUNT_ROLE_READ_ONLY)
		status, raw := k.withKey(key, controlv1connect.ModelServiceListModelsProcedure, nil)
		Expect(status).To(Equal(http.StatusOK), raw)
		Expect(raw).To(ContainSubstring(k.modelID))
		status, raw = k.withKey(key, controlv1connect.ProviderServiceListProvidersProcedure, nil)
		Expect(status).To(Equal(http.StatusOK), raw)
		Expect(raw).NotTo(ContainSubstring(companyKey))
		for procedure, req := range map[string]proto.Message{
			controlv1connect.ModelServiceCreateModelProcedure:                   newModel(),
			controlv1connect.ModelServiceDeleteModelProcedure:                   &controlv1.DeleteModelRequest{Id: k.modelID},
			controlv1connect.SettingServiceUpdateSettingsProcedure:              nil,
			controlv1connect.ServiceAccountServiceCreateServiceAccountProcedure: &controlv1.CreateServiceAccountRequest{Name: "escalate", Role: controlv1.ServiceAccountRole_SERVICE_ACCOUNT_ROLE_ADMIN},
			controlv1connect.ConversationServiceListConversationsProcedure:      nil,
			controlv1connect.MemoryServiceDeleteMemoryProcedure:                 nil,
		} {
			status, raw := k.withKey(key, procedure, req)
			Expect(status).To(Equal(http.StatusForbidden), "%s: %s", procedure, raw)
			Expect(raw).To(ContainSubstring("read-only"))
		}
		Expect(k.must(root, controlv1connect.ModelServiceListModelsProcedure, nil, nil)).NotTo(ContainSubstring("Pipeline GPT"))
	})

	It("lets an admin key manage models, audited under the account, and stops it at revocation", func() {
		id, key := k.serviceKey(controlv1.ServiceAccountRole_SERVICE_ACCOUNT_ROLE_ADMIN)
		status, raw := k.withKey(key, controlv1connect.ModelServiceCreateModelProcedure, newModel())
		Expect(status).To(Equal(http.StatusOK), raw)
		status, raw = k.do(root, http.MethodGet, "/auth/audit", "", nil)
		Expect(status).To(Equal(http.StatusOK), raw)
		Expect(raw).To(And(ContainSubstring("sa:"+id), ContainSubstring("model.put"), ContainSubstring("service_account.create")))
		Expect(raw).NotTo(ContainSubstring(key))

		k.must(root, controlv1connect.ServiceAccountServiceRevokeServiceAccountProcedure, &controlv1.RevokeServiceAccountRequest{Id: id}, nil)
		status, _ = k.withKey(key, controlv1connect.ModelServiceListModelsProcedure, nil)
		Expect(status).To(Equal(http.StatusUnauthorized))
	})

	It("refuses a member the service-account procedures, and accepts a key nowhere but the control API", func() {
		status, raw := k.call(mallory, controlv1connect.ServiceAccountServiceCreateServiceAccountProcedure,
			&controlv1.CreateServiceAccountRequest{Name: "mine", Role: controlv1.ServiceAccountRole_SERVICE_ACCOUNT_ROLE_ADMIN}, nil)
		Expect(status).To(Equal(http.StatusForbidden), raw)
		status, _ = k.call(mallory, controlv1connect.ServiceAccountServiceListServiceAccountsProcedure, nil, nil)
		Expect(status).To(Equal(http.StatusForbidden))

		_, key := k.serviceKey(controlv1.ServiceAccountRole_SERVICE_ACCOUNT_ROLE_ADMIN)
		By("the key on the account routes, SCIM, and as a gateway token")
		r, err := http.NewRequest(http.MethodGet, k.Base+"/auth/tokens?all=true", nil)
		Expect(err).NotTo(HaveOccurred())
		r.Header.Set("Authorization", "Bearer "+key)
		resp, err := http.DefaultClient.Do(r)
		Expect(err).NotTo(HaveOccurred())
		resp.Body.Close()
		Expect(resp.StatusCode).To(Equal(http.StatusUnauthorized))
		conn, err := net.DialTimeout("tcp", k.Proxy, 5*time.Second)
		Expect(err).NotTo(HaveOccurred())
		defer conn.Close()
		Expect(rawConnect(conn, "api2.cursor.sh:443", key).StatusCode).To(Equal(http.StatusProxyAuthRequired))
		status, _ = k.withKey(k.memberToken, controlv1connect.ModelServiceListModelsProcedure, nil)
		Expect(status).To(Equal(http.StatusUnauthorized), "a member's gateway token is no service-account key")
	})
})
