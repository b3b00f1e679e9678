package threatspec_test

import (
	"io"
	"net/http"
	"strings"

	. "github.com/onsi/ginkgo/v2"
	. "github.com/onsi/gomega"

	"keygate/adapters/provider/providertest"
	controlv1 "keygate/gen/keygate/control/v1"
	"keygate/gen/keygate/control/v1/controlv1connect"
)

// apiCall posts body to the compatible API path with headers ("Name:
// value") and returns the status and the answer.
func (s *stack) apiCall(path, body string, headers ...string) (int, string) {
	GinkgoHelper()
	req, err := http.NewRequest(http.MethodPost, s.Base+path, strings.NewReader(body))
	Expect(err).NotTo(HaveOccurred())
	req.Header.Set("Content-Type", "application/json")
	for _, h := range headers {
		k, v, _ := strings.Cut(h, ": ")
		req.Header.Set(k, v)
	}
	resp, err := http.DefaultClient.Do(req)
	Expect(err).NotTo(HaveOccurred())
	defer resp.Body.Close()
	raw, err := io.ReadAll(resp.Body)
	Expect(err).NotTo(HaveOccurred())
	return resp.StatusCode, string(raw)
}

var _ = Describe("Threat 24: a member spends through the compatible API as someone else, or without a token", func() {
	It("takes only a gateway token: identity headers neither replace it nor change whose call it is", func() {
		k := startKeygate()
		chat := `{"model":"Fake GPT","messages":[{"role":"user","content":"hi"}]}`

		By("identity headers alone, as if the authenticating proxy had signed the caller in")
		status, raw := k.apiCall("/v1/chat/completions", chat, userHeader+": "+root.id, groupsHeader+": "+root.groups)
		Expect(status).To(Equal(http.StatusUnauthorized), raw)

		By("mallory's token with root's identity headers")
		k.provider.Enqueue(providertest.Stream(providertest.ChatSSE(providertest.Turn{ID: "c1", Text: []string{"ok"}})))
		status, raw = k.apiCall("/v1/chat/completions", chat, "Authorization: Bearer "+k.memberToken,
			userHeader+": "+root.id, groupsHeader+": "+root.groups)
		Expect(status).To(Equal(http.StatusOK), raw)
		Expect(raw).NotTo(ContainSubstring(companyKey))
		var list controlv1.ListCallsResponse
		k.must(root, controlv1connect.CallServiceListCallsProcedure, &controlv1.ListCallsRequest{
			Filter: &controlv1.CallFilter{Kind: controlv1.CallKind_CALL_KIND_API}}, &list)
		Expect(list.GetCalls()).To(HaveLen(1))
		Expect(list.GetCalls()[0].GetUserId()).To(Equal(mallory.id), "the call is the token owner's, budgets and all")

		By("the token after mallory revoked it")
		status, _ = k.do(mallory, http.MethodDelete, "/auth/tokens/"+k.memberTokenID, "", nil)
		Expect(status).To(BeNumerically("<", 300))
		status, raw = k.apiCall("/v1/messages", `{"model":"Fake GPT","max_tokens":5,"messages":[{"role":"user","content":"hi"}]}`,
			"x-api-key: "+k.memberToken)
		Expect(status).To(Equal(http.StatusUnauthorized), raw)
		Expect(raw).To(ContainSubstring(`"authentication_error"`))
		Expect(k.provider.Requests()).To(HaveLen(1), "no refused call reached the provider")
	})
})
