package threatspec_test

import (
	"bytes"
	"context"
	"encoding/json"
	"fmt"
	"net"
	"net/http"
	"strings"
	"sync"
	"time"

	"github.com/google/uuid"
	"github.com/jackc/pgx/v5"
	. "github.com/onsi/ginkgo/v2"
	. "github.com/onsi/gomega"

	"keygate/adapters/cursor/cursortest"
	"keygate/adapters/provider/providertest"
	"keygate/app/config"
	controlv1 "keygate/gen/keygate/control/v1"
	"keygate/gen/keygate/control/v1/controlv1connect"
)

// gatewaySecret is the value of a custom header an administrator stores
// for a provider behind an access proxy: a credential like the API key.
const (
	gatewayHeader = "CF-Access-Client-Secret"
	gatewaySecret = "cf-access-secret-0123456789abcdef"
)

// dbRow reads one row of Keygate's database as someone with a backup
// would.
func (s *stack) dbRow(ctx context.Context, query string, args []any, dst ...any) {
	GinkgoHelper()
	conn, err := pgx.Connect(ctx, s.databaseURL)
	Expect(err).NotTo(HaveOccurred())
	defer conn.Close(ctx)
	Expect(conn.QueryRow(ctx, query, args...).Scan(dst...)).To(Succeed())
}

// proxyStatus is the proxy's answer for a CONNECT with token.
func (s *stack) proxyStatus(token string) int {
	GinkgoHelper()
	conn, err := net.DialTimeout("tcp", s.Proxy, 5*time.Second)
	Expect(err).NotTo(HaveOccurred())
	defer conn.Close()
	_ = conn.SetDeadline(time.Now().Add(10 * time.Second))
	resp := rawConnect(conn, "api2.cursor.sh:443", token)
	_ = resp.Body.Close()
	return resp.StatusCode
}

// mintToken asks for a token as u with body and returns the status and
// the answer.
func (s *stack) mintToken(u user, body string) (int, string) {
	GinkgoHelper()
	return s.do(u, http.MethodPost, "/auth/tokens", "application/json", []byte(body))
}

var _ = Describe("Threat 21: custom header values at rest and through the API", Ordered, func() {
	var (
		k          *stack
		evil       *attacker
		providerID string
		modelID    string
	)
	BeforeAll(func() {
		evil = newAttacker()
		k = startKeygate(allowEgress(evil.Listener.Addr().String()))
		var created controlv1.CreateProviderResponse
		k.must(root, controlv1connect.ProviderServiceCreateProviderProcedure, &controlv1.CreateProviderRequest{
			Settings: &controlv1.ProviderSettings{Name: "gateway", ProviderKind: controlv1.ProviderKind_PROVIDER_KIND_OPENAI_CHAT,
				BaseUrl: k.provider.URL, CustomHeaders: map[string]string{gatewayHeader: gatewaySecret}},
			Keys: []*controlv1.NewProviderKey{{ApiKey: companyKey, Weight: 1}}}, &created)
		providerID = created.GetProvider().GetId()
		var model controlv1.CreateModelResponse
		k.must(root, controlv1connect.ModelServiceCreateModelProcedure, &controlv1.CreateModelRequest{
			Settings: &controlv1.ModelSettings{DisplayName: "Behind the gateway", ProviderId: providerID, ModelId: "fake-gpt"},
			Enabled:  true}, &model)
		modelID = model.GetModel().GetId()
	})

	// sent runs a connection test of the model and returns the header the
	// provider received.
	sent := func(ctx context.Context) string {
		GinkgoHelper()
		k.provider.Enqueue(providertest.Stream(providertest.ChatSSE(providertest.Turn{ID: "t", Text: providertest.Words("ok")})))
		res, err := k.testModel(ctx, root, modelID)
		Expect(err).NotTo(HaveOccurred())
		Expect(res.GetOk()).To(BeTrue(), res.GetError())
		reqs := k.provider.Requests()
		return reqs[len(reqs)-1].Header.Get(gatewayHeader)
	}

	It("stores the value sealed, leaving nothing in clear in the table, and still sends it to the provider", func(ctx SpecContext) {
		var clearHeaders string
		var sealed []byte
		k.dbRow(ctx, "SELECT custom_headers::text, sealed_headers FROM providers WHERE id = $1", []any{providerID}, &clearHeaders, &sealed)
		Expect(clearHeaders).To(Equal("null"))
		Expect(sealed).NotTo(BeEmpty())
		Expect(string(sealed)).NotTo(ContainSubstring(gatewaySecret))
		Expect(string(sealed)).NotTo(ContainSubstring(gatewaySecret[len(gatewaySecret)-8:]))
		Expect(sent(ctx)).To(Equal(gatewaySecret))
	})

	It("never returns the value through the API, to administrators either: names and a masked hint only", func() {
		var providers controlv1.ListProvidersResponse
		raw := k.must(root, controlv1connect.ProviderServiceListProvidersProcedure, &controlv1.ListProvidersRequest{}, &providers)
		var models controlv1.ListModelsResponse
		raw += k.must(root, controlv1connect.ModelServiceListModelsProcedure, &controlv1.ListModelsRequest{}, &models)
		raw += k.must(mallory, controlv1connect.ModelServiceListModelsProcedure, &controlv1.ListModelsRequest{}, nil)
		Expect(raw).NotTo(ContainSubstring(gatewaySecret))
		Expect(raw).NotTo(ContainSubstring(gatewaySecret[3 : len(gatewaySecret)-4]))
		var p *controlv1.Provider
		for _, x := range providers.GetProviders() {
			if x.GetId() == providerID {
				p = x
			}
		}
		Expect(p).NotTo(BeNil())
		Expect(p.GetSettings().GetCustomHeaders()).To(Equal(map[string]string{gatewayHeader: ""}))
		Expect(p.GetCustomHeaderHints()).To(ConsistOf(And(HaveField("Name", gatewayHeader), HaveField("Hint", "cf-…cdef"))))
	})

	It("keeps a header whose value is not entered again, and takes a new value only when entered", func(ctx SpecContext) {
		settings := func(base, value string) *controlv1.ProviderSettings {
			return &controlv1.ProviderSettings{Name: "gateway", ProviderKind: controlv1.ProviderKind_PROVIDER_KIND_OPENAI_CHAT,
				BaseUrl: base, CustomHeaders: map[string]string{gatewayHeader: value}}
		}
		k.must(root, controlv1connect.ProviderServiceUpdateProviderProcedure, &controlv1.UpdateProviderRequest{
			Id: providerID, Settings: settings(k.provider.URL, "")}, nil)
		Expect(sent(ctx)).To(Equal(gatewaySecret), "an empty value keeps the stored one")

		By("a kept value never follows the provider to another origin")
		status, raw := k.call(root, controlv1connect.ProviderServiceUpdateProviderProcedure, &controlv1.UpdateProviderRequest{
			Id: providerID, Settings: settings(evil.URL, "")}, nil)
		Expect(status).To(Equal(http.StatusBadRequest), raw)
		Expect(raw).To(ContainSubstring("enter the value of header " + gatewayHeader + " again"))
		Expect(evil.hits.Load()).To(BeZero())

		By("a header never stored needs its value")
		status, raw = k.call(root, controlv1connect.ProviderServiceUpdateProviderProcedure, &controlv1.UpdateProviderRequest{
			Id: providerID, Settings: &controlv1.ProviderSettings{ProviderKind: controlv1.ProviderKind_PROVIDER_KIND_OPENAI_CHAT,
				BaseUrl: k.provider.URL, CustomHeaders: map[string]string{gatewayHeader: "", "X-Org-Token": ""}}}, nil)
		Expect(status).To(Equal(http.StatusBadRequest), raw)
		Expect(raw).To(ContainSubstring("enter the value of header X-Org-Token"))

		k.must(root, controlv1connect.ProviderServiceUpdateProviderProcedure, &controlv1.UpdateProviderRequest{
			Id: providerID, Settings: settings(k.provider.URL, "cf-rotated-9876543210")}, nil)
		Expect(sent(ctx)).To(Equal("cf-rotated-9876543210"))
	})

	It("keeps no value in a detailed call record either", func(ctx SpecContext) {
		k.must(root, controlv1connect.SettingServiceUpdateSettingsProcedure, &controlv1.UpdateSettingsRequest{
			Settings: &controlv1.Settings{DetailedMode: true}}, nil)
		k.provider.Enqueue(providertest.Stream(providertest.ChatSSE(providertest.Turn{ID: "t", Text: providertest.Words("ok")})))
		res, err := k.testModel(ctx, root, modelID)
		Expect(err).NotTo(HaveOccurred())
		var call controlv1.GetCallResponse
		raw := k.must(root, controlv1connect.CallServiceGetCallProcedure, &controlv1.GetCallRequest{CallId: res.GetCallId()}, &call)
		Expect(call.GetRequest().GetHeaders()).To(ContainElement(And(
			HaveField("Name", http.CanonicalHeaderKey(gatewayHeader)), HaveField("Value", "••••••"))))
		Expect(raw).NotTo(ContainSubstring("cf-rotated-9876543210"))
	})
})

var _ = Describe("Threat 22: gateway tokens that live forever or in bulk, and members removed from the group", func() {
	const maxLive = 5
	var k *stack
	BeforeEach(func() {
		k = startKeygate(func(c *config.Config) {
			c.Auth.MemberGroups = []string{"staff"}
			c.Tokens.MaxPerUser = maxLive
		})
	})

	expiry := func(raw string) time.Time {
		GinkgoHelper()
		var out struct {
			Token struct {
				ExpiresAt time.Time `json:"expiresAt"`
			} `json:"token"`
		}
		Expect(json.Unmarshal([]byte(raw), &out)).To(Succeed())
		return out.Token.ExpiresAt
	}

	It("gives a token asked without a lifetime the longest allowed, 90 days, and refuses a longer one before any arithmetic", func() {
		status, raw := k.mintToken(mallory, `{"name":"no lifetime"}`)
		Expect(status).To(Equal(http.StatusCreated), raw)
		Expect(expiry(raw)).To(BeTemporally("~", time.Now().Add(90*24*time.Hour), time.Minute))
		for _, days := range []string{"91", "106752", "2147483647", "9223372036854775807", "1e30", "-1"} {
			status, raw := k.mintToken(mallory, `{"name":"forever","ttlDays":`+days+`}`)
			Expect(status).To(Equal(http.StatusBadRequest), "ttlDays %s: %s", days, raw)
		}
		_, raw = k.mintToken(mallory, `{"name":"forever","ttlDays":106752}`)
		Expect(raw).To(ContainSubstring("at most 90 days"))
		status, raw = k.do(mallory, http.MethodGet, "/auth/tokens", "", nil)
		Expect(status).To(Equal(http.StatusOK))
		Expect(raw).NotTo(ContainSubstring("forever"))
	})

	It("refuses a token older than the longest lifetime, also one minted without any expiry before the bound", func(ctx SpecContext) {
		Expect(k.proxyStatus(k.memberToken)).To(Equal(http.StatusOK))
		conn, err := pgx.Connect(ctx, k.databaseURL)
		Expect(err).NotTo(HaveOccurred())
		defer conn.Close(ctx)
		_, err = conn.Exec(ctx, `UPDATE gateway_tokens SET created_at = now() - interval '91 days',
			expires_at = '0001-01-01 00:00:00+00' WHERE id = $1`, k.memberTokenID)
		Expect(err).NotTo(HaveOccurred())
		Expect(k.proxyStatus(k.memberToken)).To(Equal(http.StatusProxyAuthRequired))
	})

	It("caps the live tokens of a member, however many requests race", func() {
		bulk := user{id: "bulk@corp.test", groups: "staff"}
		var wg sync.WaitGroup
		var mu sync.Mutex
		statuses := map[int]int{}
		for i := range 40 {
			wg.Add(1)
			go func() {
				defer GinkgoRecover()
				defer wg.Done()
				status, _ := k.mintToken(bulk, fmt.Sprintf(`{"name":"bulk %d"}`, i))
				mu.Lock()
				statuses[status]++
				mu.Unlock()
			}()
		}
		wg.Wait()
		Expect(statuses).To(Equal(map[int]int{http.StatusCreated: maxLive, http.StatusConflict: 40 - maxLive}))
		status, raw := k.mintToken(bulk, `{"name":"one more"}`)
		Expect(status).To(Equal(http.StatusConflict))
		Expect(raw).To(ContainSubstring("revoke one"))

		By("a revoked token frees its place")
		status, raw = k.do(bulk, http.MethodGet, "/auth/tokens", "", nil)
		Expect(status).To(Equal(http.StatusOK))
		var list struct {
			Tokens []struct {
				ID string `json:"id"`
			} `json:"tokens"`
		}
		Expect(json.Unmarshal([]byte(raw), &list)).To(Succeed())
		status, _ = k.do(bulk, http.MethodDelete, "/auth/tokens/"+list.Tokens[0].ID, "", nil)
		Expect(status).To(Equal(http.StatusNoContent))
		status, _ = k.mintToken(bulk, `{"name":"one more"}`)
		Expect(status).To(Equal(http.StatusCreated))
	})

	It("refuses at the proxy the tokens of a user the console saw without the member group, until it sees them in it again", func() {
		Expect(k.proxyStatus(k.memberToken)).To(Equal(http.StatusOK))
		removed := user{id: mallory.id, groups: "contractors"}
		status, _ := k.do(removed, http.MethodGet, "/auth/me", "", nil)
		Expect(status).To(Equal(http.StatusForbidden), "the console refuses her")
		Expect(k.proxyStatus(k.memberToken)).To(Equal(http.StatusProxyAuthRequired), "and so does the proxy")

		status, _ = k.do(mallory, http.MethodGet, "/auth/me", "", nil)
		Expect(status).To(Equal(http.StatusOK))
		Expect(k.proxyStatus(k.memberToken)).To(Equal(http.StatusOK), "back in the group, her tokens work again")
	})

	It("refuses to start in company mode with tokens that never expire, unless the operator says so", func() {
		cfg := companyConfig()
		cfg.Tokens.MaxTTLDays = 0
		Expect(cfg.Validate()).To(MatchError(ContainSubstring(config.EnvTokenAllowUnlimited)))
		cfg.Tokens.AllowUnlimited = true
		Expect(cfg.Validate()).To(Succeed())
	})
})

var _ = Describe("Threat 23: a member reads provider URLs", Ordered, func() {
	var (
		k      *stack
		callID string
	)
	BeforeAll(func(ctx SpecContext) {
		k = startKeygate()
		k.must(root, controlv1connect.SettingServiceUpdateSettingsProcedure, &controlv1.UpdateSettingsRequest{
			Settings: &controlv1.Settings{DetailedMode: true}}, nil)
		k.provider.Enqueue(providertest.Stream(providertest.ChatSSE(providertest.Turn{ID: "req-url-1", Text: providertest.Words("Noted.")})))
		c := cursortest.NewClient(cursorAPI, k.CursorHTTP(k.memberToken), "req-url-1")
		st, err := c.Subscribe(ctx)
		Expect(err).NotTo(HaveOccurred())
		DeferCleanup(st.Close)
		msg := cursortest.RunRequest("conv-url", k.modelID, "hello")
		msg.GetRunRequest().GetAction().GetUserMessageAction().GetUserMessage().MessageId = uuid.NewString()
		Expect(c.Send(ctx, msg)).To(Succeed())
		Eventually(st.Done()).WithTimeout(20 * time.Second).Should(BeClosed())
		Expect(st.EndError()).To(BeNil())
		var list controlv1.ListCallsResponse
		k.must(mallory, controlv1connect.CallServiceListCallsProcedure, &controlv1.ListCallsRequest{}, &list)
		Expect(list.GetCalls()).To(HaveLen(1))
		callID = list.GetCalls()[0].GetCallId()
	}, NodeTimeout(60*time.Second))

	host := func() string { return providerAddr(k.provider) }

	It("shows a member the models without their base URL", func() {
		raw := k.must(mallory, controlv1connect.ModelServiceListModelsProcedure, &controlv1.ListModelsRequest{}, nil)
		Expect(raw).NotTo(ContainSubstring(host()))
		Expect(k.must(root, controlv1connect.ModelServiceListModelsProcedure, &controlv1.ListModelsRequest{}, nil)).To(ContainSubstring(host()))
	})

	It("shows a member their own calls without the request URL, which an administrator still sees", func() {
		var raw bytes.Buffer
		raw.WriteString(k.must(mallory, controlv1connect.CallServiceListCallsProcedure, &controlv1.ListCallsRequest{}, nil))
		var detail controlv1.GetCallResponse
		raw.WriteString(k.must(mallory, controlv1connect.CallServiceGetCallProcedure, &controlv1.GetCallRequest{CallId: callID}, &detail))
		Expect(detail.GetRequest()).NotTo(BeNil(), "detailed mode recorded the request")
		Expect(raw.String()).NotTo(ContainSubstring(host()))
		Expect(k.must(root, controlv1connect.CallServiceGetCallProcedure, &controlv1.GetCallRequest{CallId: callID}, nil)).
			To(ContainSubstring(host()))
		Expect(strings.Count(raw.String(), callID)).To(BeNumerically(">=", 2))
	})
})
