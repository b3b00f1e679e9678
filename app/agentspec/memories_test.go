package agentspec_test

import (
	"context"
	"strings"

	"connectrpc.com/connect"
	. "github.com/onsi/ginkgo/v2"
	. "github.com/onsi/gomega"

	"keygate/adapters/provider/providertest"
	"keygate/domain/llm"
	aiserverv1 "keygate/gen/cursor/aiserver/v1"
	"keygate/gen/cursor/aiserver/v1/aiserverv1connect"
)

var _ = Describe("Cursor's memories kept by Keygate, through the proxy", func() {
	var (
		k   *keygate
		ai  aiserverv1connect.AiServiceClient
		ctx context.Context
	)
	BeforeEach(func() {
		ctx = context.Background()
		k = startKeygate(newWeb(), nil)
		ai = aiserverv1connect.NewAiServiceClient(k.cursorHTTP(), cursorAPI)
	})
	list := func() []*aiserverv1.KnowledgeBaseListResponse_Item {
		GinkgoHelper()
		resp, err := ai.KnowledgeBaseList(ctx, connect.NewRequest(&aiserverv1.KnowledgeBaseListRequest{}))
		Expect(err).NotTo(HaveOccurred())
		Expect(resp.Msg.GetSuccess()).To(BeTrue())
		return resp.Msg.GetAllResults()
	}

	It("adds, lists, edits and deletes memories as Cursor's settings do, and every turn carries them", func() {
		added, err := ai.KnowledgeBaseAdd(ctx, connect.NewRequest(&aiserverv1.KnowledgeBaseAddRequest{
			Title: "Indentation", Knowledge: "The user wants tabs, never spaces.", GitOrigin: "git@example.test:team/repo"}))
		Expect(err).NotTo(HaveOccurred())
		Expect(added.Msg.GetSuccess()).To(BeTrue())
		id := added.Msg.GetId()
		Expect(id).NotTo(BeEmpty())

		items := list()
		Expect(items).To(HaveLen(1))
		Expect(items[0].GetId()).To(Equal(id))
		Expect(items[0].GetTitle()).To(Equal("Indentation"))
		Expect(items[0].GetCreatedAt()).NotTo(BeEmpty())

		By("a turn on a Keygate model shows the model the memory")
		t := k.turn(llm.ProviderOpenAIChat, userMessage("conv-mem-1", "Format main.go.", nil), nil,
			providertest.Turn{Text: []string{"Done."}})
		Expect(string(t.requests[0].Body)).To(ContainSubstring("The user wants tabs, never spaces."))

		By("an edit is listed and reaches the next turn")
		upd, err := ai.KnowledgeBaseUpdate(ctx, connect.NewRequest(&aiserverv1.KnowledgeBaseUpdateRequest{
			Id: id, Title: "Indentation", Knowledge: "The user wants two spaces."}))
		Expect(err).NotTo(HaveOccurred())
		Expect(upd.Msg.GetSuccess()).To(BeTrue())
		Expect(list()[0].GetKnowledge()).To(Equal("The user wants two spaces."))
		t = k.turn(llm.ProviderOpenAIChat, userMessage("conv-mem-2", "Again.", nil), nil,
			providertest.Turn{Text: []string{"Done."}})
		Expect(string(t.requests[0].Body)).To(ContainSubstring("The user wants two spaces."))

		By("a deleted memory is gone, and deleting it again says so")
		rm, err := ai.KnowledgeBaseRemove(ctx, connect.NewRequest(&aiserverv1.KnowledgeBaseRemoveRequest{Id: id}))
		Expect(err).NotTo(HaveOccurred())
		Expect(rm.Msg.GetSuccess()).To(BeTrue())
		Expect(list()).To(BeEmpty())
		rm, err = ai.KnowledgeBaseRemove(ctx, connect.NewRequest(&aiserverv1.KnowledgeBaseRemoveRequest{Id: id}))
		Expect(err).NotTo(HaveOccurred())
		Expect(rm.Msg.GetSuccess()).To(BeFalse())
	})

	It("refuses an empty or over-long memory as the caller's mistake", func() {
		_, err := ai.KnowledgeBaseAdd(ctx, connect.NewRequest(&aiserverv1.KnowledgeBaseAddRequest{Title: "t", Knowledge: "  "}))
		Expect(connect.CodeOf(err)).To(Equal(connect.CodeInvalidArgument))
		_, err = ai.KnowledgeBaseAdd(ctx, connect.NewRequest(&aiserverv1.KnowledgeBaseAddRequest{Title: "t", Knowledge: strings.Repeat("k", 5000)}))
		Expect(connect.CodeOf(err)).To(Equal(connect.CodeInvalidArgument))
		Expect(list()).To(BeEmpty())
	})
})
