package agent_test

import (
	"os"
	"path/filepath"

	"connectrpc.com/connect"
	. "github.com/onsi/ginkgo/v2"
	. "github.com/onsi/gomega"

	"keygate/adapters/cursor/cursortest"
	"keygate/adapters/provider/providertest"
	aiserverv1 "keygate/gen/cursor/aiserver/v1"
)

// bubble is the client's error bubble a stream ended with.
func bubble(st *cursortest.Stream) *aiserverv1.ErrorDetails {
	Expect(st.EndError()).NotTo(BeNil())
	details := st.EndError().Details()
	Expect(details).To(HaveLen(1))
	v, err := details[0].Value()
	Expect(err).NotTo(HaveOccurred())
	d, ok := v.(*aiserverv1.ErrorDetails)
	Expect(ok).To(BeTrue(), "an aiserver.v1.ErrorDetails")
	return d
}

var _ = Describe("Handler ending a turn that did not complete, in the words the client shows", func() {
	f := useFixture()

	DescribeTable("a cancelled turn ends with a sentence, never a dangling colon",
		func(reason, want string) {
			f.h.provider.Enqueue(stallAfter(mainKind, providertest.Turn{ID: "r1", Text: []string{"Partial ", "answer"}}, "Partial"))
			st := open(f.c, cursortest.RunRequest("conv-cancel-text", "kg-model", "Tell me"))
			Eventually(st.Texts).Should(Equal([]string{"Partial "}))
			Expect(f.c.Send(ctx(), cursortest.Cancel(reason))).To(Succeed())
			finished(st)
			Expect(st.EndError().Code()).To(Equal(connect.CodeCanceled))
			Expect(st.EndError().Message()).To(Equal(want))
		},
		Entry("the stop button without a reason", "", "The run was cancelled by the user."),
		Entry("a cancel that gives its reason", "user pressed stop", "The run was cancelled by the user (user pressed stop)."),
	)

	It("shows an answer the provider's content filter blocked as such: its own bubble title, the filter's category, no retry button", func() {
		body, err := os.ReadFile(filepath.Join("..", "..", "provider", "testdata", "openai-chat-azure-content-filter-docs.sse"))
		Expect(err).NotTo(HaveOccurred())
		f.h.provider.Enqueue(providertest.Stream(body))
		st := finished(open(f.c, cursortest.RunRequest("conv-filtered", "kg-model", "Tell me the lyrics")))
		Expect(st.Texts()).NotTo(BeEmpty(), "the client saw the text before the block")
		d := bubble(st)
		Expect(d.GetDetails().GetTitle()).To(Equal("Blocked by the Provider's Content Filter"))
		Expect(d.GetDetails().GetDetail()).To(HavePrefix("The model provider's content filter blocked the answer (protected_material_text)."))
		Expect(d.GetDetails().GetIsRetryable()).To(BeFalse())
		Expect(d.GetDetails().GetShouldShowImmediateError()).To(BeTrue())
		Expect(f.h.provider.Requests()).To(HaveLen(1), "a filtered answer is not retried")
		Expect(cursortest.Kinds(st.Content())).NotTo(ContainElement("turn_ended"))
	})

	It("words a provider failure as a sentence naming the provider's reason, not a wrapped error chain", func() {
		f.h.provider.Enqueue(providertest.Status(404, `{"error":{"message":"The model does not exist","type":"invalid_request_error"}}`))
		st := finished(open(f.c, cursortest.RunRequest("conv-404", "kg-model", "Hi")))
		Expect(st.EndError().Message()).To(Equal("The model provider rejected the request (OpenAI Chat 404: The model does not exist). Check the model's configuration."))
		Expect(bubble(st).GetDetails().GetDetail()).To(Equal(st.EndError().Message()))
	})
})
