package threatspec_test

import (
	"encoding/json"
	"io"
	"net/http"
	"strings"
	"time"

	"connectrpc.com/connect"
	. "github.com/onsi/ginkgo/v2"
	. "github.com/onsi/gomega"

	"keygate/adapters/cursor/cursortest"
	"keygate/adapters/provider/providertest"
	aiserverv1 "keygate/gen/cursor/aiserver/v1"
	"keygate/gen/cursor/aiserver/v1/aiserverv1connect"
	controlv1 "keygate/gen/keygate/control/v1"
	"keygate/gen/keygate/control/v1/controlv1connect"
)

const offList = "not on your team's model list"

var _ = Describe("Threat 25: a member uses a model outside their team's allow-list", Ordered, func() {
	var (
		k       *stack
		allowed string
	)
	BeforeAll(func() {
		k = startKeygate()
		var created controlv1.CreateModelResponse
		k.must(root, controlv1connect.ModelServiceCreateModelProcedure, &controlv1.CreateModelRequest{
			Settings: &controlv1.ModelSettings{DisplayName: "Fake Small", ProviderKind: controlv1.ProviderKind_PROVIDER_KIND_OPENAI_CHAT,
				BaseUrl: k.provider.URL, ModelId: "fake-small", SupportsTools: true},
			ApiKey: companyKey, Enabled: true,
		}, &created)
		allowed = created.GetModel().GetId()
		By("the administrator restricting mallory's group, staff, to Fake Small; Fake GPT is Cursor Tab's model")
		k.must(root, controlv1connect.TeamServicePutTeamProcedure, &controlv1.PutTeamRequest{
			Name: "staff", Restricted: true, Models: []string{allowed}}, nil)
		var tab controlv1.SetTabModelResponse
		k.must(root, controlv1connect.SettingServiceSetTabModelProcedure, &controlv1.SetTabModelRequest{Model: "Fake GPT"}, &tab)
		// mallory's groups are recorded when the console sees her.
		var mine controlv1.GetMyTeamsResponse
		k.must(mallory, controlv1connect.TeamServiceGetMyTeamsProcedure, nil, &mine)
		Expect(mine.GetCharged()).To(Equal("staff"))
	})

	It("refuses the compatible API 403 in the client's shape and lists only her models", func() {
		status, raw := k.apiCall("/v1/chat/completions", `{"model":"Fake GPT","messages":[{"role":"user","content":"hi"}]}`,
			"Authorization: Bearer "+k.memberToken)
		Expect(status).To(Equal(http.StatusForbidden), raw)
		Expect(raw).To(ContainSubstring(offList))
		status, raw = k.apiCall("/v1/messages", `{"model":"`+k.modelID+`","max_tokens":5,"messages":[{"role":"user","content":"hi"}]}`,
			"x-api-key: "+k.memberToken)
		Expect(status).To(Equal(http.StatusForbidden), raw)
		Expect(raw).To(ContainSubstring(`"permission_error"`))

		req, err := http.NewRequest(http.MethodGet, k.Base+"/v1/models", nil)
		Expect(err).NotTo(HaveOccurred())
		req.Header.Set("Authorization", "Bearer "+k.memberToken)
		resp, err := http.DefaultClient.Do(req)
		Expect(err).NotTo(HaveOccurred())
		defer resp.Body.Close()
		b, err := io.ReadAll(resp.Body)
		Expect(err).NotTo(HaveOccurred())
		var list struct{ Data []struct{ ID string } }
		Expect(json.Unmarshal(b, &list)).To(Succeed(), string(b))
		Expect(list.Data).To(HaveLen(1))
		Expect(list.Data[0].ID).To(Equal(allowed))
		Expect(k.provider.Requests()).To(BeEmpty(), "no refused call reached the provider")
	})

	It("offers only her model in Cursor's picker", func(ctx SpecContext) {
		ai := aiserverv1connect.NewAiServiceClient(k.CursorHTTP(k.memberToken), cursorAPI)
		resp, err := ai.AvailableModels(ctx, connect.NewRequest(&aiserverv1.AvailableModelsRequest{}))
		Expect(err).NotTo(HaveOccurred())
		Expect(resp.Msg.GetModelNames()).To(ContainElement(allowed))
		Expect(resp.Msg.GetModelNames()).NotTo(ContainElement(k.modelID))
	}, SpecTimeout(30*time.Second))

	It("ends a Cursor Agent turn on it with the refusal in the chat", func(ctx SpecContext) {
		st := cursorTurn(ctx, k.CursorHTTP(k.memberToken), k.modelID, "req-offlist-1", "conv-offlist", "")
		Eventually(st.Done()).WithTimeout(20 * time.Second).Should(BeClosed())
		e := st.EndError()
		Expect(e).NotTo(BeNil())
		Expect(refusal(st)).To(ContainSubstring(offList))
		Expect(k.provider.Requests()).To(BeEmpty())
	}, SpecTimeout(60*time.Second))

	It("refuses Cursor Tab on it with a message the editor shows", func(ctx SpecContext) {
		c := cursortest.NewTabClient(cursorAPI, k.CursorHTTP(k.memberToken), "main.go", "package main\n\nfunc main() {\n\t\n}\n", false)
		c.MoveTo(3, 1)
		_, err := c.Suggest(ctx)
		Expect(connect.CodeOf(err)).To(Equal(connect.CodePermissionDenied), "%v", err)
		Expect(err.Error()).To(ContainSubstring(offList))
		Expect(k.provider.Requests()).To(BeEmpty())
	}, SpecTimeout(60*time.Second))

	It("still serves the model on her list", func(ctx SpecContext) {
		k.provider.Enqueue(providertest.Stream(providertest.ChatSSE(providertest.Turn{ID: "ok1", Text: []string{"ok"}})))
		status, raw := k.apiCall("/v1/chat/completions", `{"model":"Fake Small","messages":[{"role":"user","content":"hi"}]}`,
			"Authorization: Bearer "+k.memberToken)
		Expect(status).To(Equal(http.StatusOK), raw)
		Expect(strings.Contains(raw, "ok")).To(BeTrue())
		Expect(k.provider.Requests()).To(HaveLen(1))
	})
})
