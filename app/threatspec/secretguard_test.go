package threatspec_test

import (
	"context"
	"encoding/json"
	"io"
	"net/http"
	"strings"
	"time"

	. "github.com/onsi/ginkgo/v2"
	. "github.com/onsi/gomega"

	"keygate/adapters/cursor/cursortest"
	"keygate/adapters/provider/providertest"
	"keygate/app/config"
)

// pastedKey is an AWS access key id as a member would paste it (gitleaks
// allows the documentation's AKIAIOSFODNN7EXAMPLE, so a real-looking one).
const pastedKey = "AKIAZ3MSJV4WWNKWW5GG"

// chatMessages are the raw messages of an OpenAI Chat request body, each
// exactly as Keygate wrote it.
func chatMessages(body []byte) []string {
	GinkgoHelper()
	var req struct {
		Messages []json.RawMessage `json:"messages"`
	}
	Expect(json.Unmarshal(body, &req)).To(Succeed())
	var out []string
	for _, m := range req.Messages {
		out = append(out, string(m))
	}
	return out
}

// agentTurn runs one Agent turn through the forward proxy as mallory on
// conv and waits for its end; state is the client's checkpoint (nil for a
// new conversation).
func (s *stack) agentTurn(ctx context.Context, c *cursortest.Client, conv, messageID, text string) *cursortest.Stream {
	GinkgoHelper()
	st, err := c.Subscribe(ctx)
	Expect(err).NotTo(HaveOccurred())
	DeferCleanup(st.Close)
	Expect(c.Send(ctx, cursortest.Request(conv, s.modelID, cursortest.UserMessageAction(messageID, text), c.Checkpoint()))).To(Succeed())
	Eventually(st.Done()).WithTimeout(30 * time.Second).Should(BeClosed())
	return st
}

func (s *stack) metrics(prefix string) string {
	GinkgoHelper()
	req, err := http.NewRequest(http.MethodGet, s.Base+"/metrics", nil)
	Expect(err).NotTo(HaveOccurred())
	req.Header.Set("Authorization", "Bearer scrape-token-0123456789")
	resp, err := http.DefaultClient.Do(req)
	Expect(err).NotTo(HaveOccurred())
	defer resp.Body.Close()
	raw, _ := io.ReadAll(resp.Body)
	var lines []string
	for _, l := range strings.Split(string(raw), "\n") {
		if strings.HasPrefix(l, prefix) {
			lines = append(lines, l)
		}
	}
	return strings.Join(lines, "\n")
}

var _ = Describe("Threat 28: a member pastes a cloud key into a prompt in company mode (KEYGATE_SECRET_GUARD, default redact)", Ordered, func() {
	var k *stack
	BeforeAll(func() {
		k = startKeygate(func(c *config.Config) { c.MetricsToken = "scrape-token-0123456789" })
	})

	It("redacts it from an Agent turn through the proxy: the provider never sees the key, and the redacted history stays a byte-identical prefix turn after turn", func(ctx SpecContext) {
		k.provider.Enqueue(providertest.Stream(providertest.ChatSSE(providertest.Turn{ID: "g1", Text: providertest.Words("Noted.")})))
		k.provider.Enqueue(providertest.Stream(providertest.ChatSSE(providertest.Turn{ID: "g2", Text: providertest.Words("Done.")})))
		before := len(k.provider.Requests())
		c := cursortest.NewClient(cursorAPI, k.CursorHTTP(k.memberToken), "req-guard-1")
		st := k.agentTurn(ctx, c, "conv-guard", "m1", "deploy with aws_access_key_id="+pastedKey+" to staging")
		Expect(st.EndError()).To(BeNil())
		st = k.agentTurn(ctx, c.WithRequestID("req-guard-2"), "conv-guard", "m2", "and what region?")
		Expect(st.EndError()).To(BeNil())

		reqs := k.provider.Requests()[before:]
		Expect(reqs).To(HaveLen(2))
		for _, r := range reqs {
			Expect(string(r.Body)).NotTo(ContainSubstring(pastedKey))
			Expect(string(r.Body)).NotTo(ContainSubstring("WWNKWW5GG"))
		}
		Expect(string(reqs[0].Body)).To(MatchRegexp(`\[REDACTED aws-access-token [0-9a-f]{8}\]`))
		first, second := chatMessages(reqs[0].Body), chatMessages(reqs[1].Body)
		Expect(len(second)).To(BeNumerically(">", len(first)))
		Expect(second[:len(first)]).To(Equal(first), "the cached prefix is byte-identical on the next turn")
	}, SpecTimeout(90*time.Second))

	It("redacts it from a compatible-API call too", func() {
		before := len(k.provider.Requests())
		k.provider.Enqueue(providertest.Stream(providertest.ChatSSE(providertest.Turn{ID: "g3", Text: []string{"ok"}})))
		status, raw := k.apiCall("/v1/chat/completions",
			`{"model":"Fake GPT","messages":[{"role":"user","content":"use `+pastedKey+` for the upload"}]}`,
			"Authorization: Bearer "+k.memberToken)
		Expect(status).To(Equal(http.StatusOK), raw)
		reqs := k.provider.Requests()[before:]
		Expect(reqs).To(HaveLen(1))
		Expect(string(reqs[0].Body)).NotTo(ContainSubstring(pastedKey))
		Expect(string(reqs[0].Body)).To(ContainSubstring("[REDACTED aws-access-token "))
	})

	It("counts and audits each finding by rule, without the key", func() {
		Expect(k.metrics("keygate_secret_guard_findings_total{")).To(SatisfyAll(
			ContainSubstring(`keygate_secret_guard_findings_total{action="redact",kind="agent",rule="aws-access-token"} 1`),
			ContainSubstring(`keygate_secret_guard_findings_total{action="redact",kind="api",rule="aws-access-token"} 1`),
		), "the key is counted when first seen, not again on every later turn that replays it")
		status, raw := k.do(root, http.MethodGet, "/auth/audit?limit=100", "", nil)
		Expect(status).To(Equal(http.StatusOK), raw)
		Expect(raw).To(ContainSubstring("secret.redact"))
		Expect(raw).To(ContainSubstring("aws-access-token"))
		Expect(raw).To(ContainSubstring(mallory.id))
		Expect(raw).NotTo(ContainSubstring(pastedKey))
	})
})

var _ = Describe("Threat 28: with KEYGATE_SECRET_GUARD=block", Ordered, func() {
	var k *stack
	BeforeAll(func() {
		k = startKeygate(func(c *config.Config) { c.SecretGuard = "block" })
	})

	It("refuses the Agent turn before the provider, telling the member which kind of secret and never its value", func(ctx SpecContext) {
		before := len(k.provider.Requests())
		c := cursortest.NewClient(cursorAPI, k.CursorHTTP(k.memberToken), "req-guard-block")
		st := k.agentTurn(ctx, c, "conv-guard-block", "m1", "deploy with "+pastedKey)
		Expect(st.EndError()).NotTo(BeNil())
		Expect(st.EndError().Message()).To(ContainSubstring("aws-access-token"))
		Expect(st.EndError().Message()).To(ContainSubstring("secret guard"))
		Expect(st.EndError().Message()).NotTo(ContainSubstring(pastedKey))
		Expect(k.provider.Requests()[before:]).To(BeEmpty())
	}, SpecTimeout(60*time.Second))

	It("answers a compatible-API call 403 in the client's shape", func() {
		before := len(k.provider.Requests())
		status, raw := k.apiCall("/v1/messages",
			`{"model":"Fake GPT","max_tokens":5,"messages":[{"role":"user","content":"use `+pastedKey+`"}]}`,
			"x-api-key: "+k.memberToken)
		Expect(status).To(Equal(http.StatusForbidden), raw)
		Expect(raw).To(ContainSubstring(`"permission_error"`))
		Expect(raw).To(ContainSubstring("aws-access-token"))
		Expect(raw).NotTo(ContainSubstring(pastedKey))
		Expect(k.provider.Requests()[before:]).To(BeEmpty())
	})
})
