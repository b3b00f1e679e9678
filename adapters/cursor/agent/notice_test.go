package agent_test

import (
	"context"

	. "github.com/onsi/ginkgo/v2"
	. "github.com/onsi/gomega"

	"keygate/adapters/cursor"
	"keygate/adapters/cursor/agent"
	"keygate/adapters/cursor/cursortest"
	"keygate/adapters/provider/providertest"
)

var _ = Describe("Handler showing an admitted turn's notice (a budget's 80% warning)", func() {
	const warning = "Keygate: 85% of your tokens for today are used (850 of 1000). Requests stop at 100% until 00:00 UTC."

	It("shows it in a closed thinking block before the answer, and keeps it out of the prompt and the checkpoint", func() {
		h := newHarness(mainKind)
		env := cursortest.Serve(h.newHandler(agent.Options{Runs: h.stores.Runs, Blobs: h.stores.Blobs}), cursor.Options{
			Transport: cursortest.FastTimings(),
			Admit:     func(context.Context, string, string) (func(), error) { return func() {}, nil },
			Notice:    func(context.Context) string { return warning },
		})
		DeferCleanup(env.Close)
		h.reply(providertest.Turn{ID: "r1", Text: []string{"It works."}})
		st := open(env.Client("req-notice"), cursortest.RunRequest("conv-notice", "kg-model", "Hi"))
		finished(st)
		Expect(st.EndError()).To(BeNil())
		blocks := cursortest.Thinking(st.Messages())
		Expect(blocks).To(HaveLen(1))
		Expect(blocks[0].Text).To(Equal(warning + "\n"))
		Expect(blocks[0].Closed).To(BeTrue())
		Expect(st.Texts()).To(Equal([]string{"It works."}))
		reqs := h.provider.Requests()
		Expect(reqs).To(HaveLen(1))
		Expect(string(reqs[0].Body)).NotTo(ContainSubstring("85%"), "the model never sees the notice")
		for _, m := range lastCheckpoint(st).GetRootPromptMessagesJson() {
			Expect(string(m)).NotTo(ContainSubstring("85%"))
		}
	})

	It("shows nothing when the notice is empty", func() {
		h := newHarness(mainKind)
		env := cursortest.Serve(h.newHandler(agent.Options{Runs: h.stores.Runs, Blobs: h.stores.Blobs}), cursor.Options{
			Transport: cursortest.FastTimings(),
			Admit:     func(context.Context, string, string) (func(), error) { return func() {}, nil },
			Notice:    func(context.Context) string { return "" },
		})
		DeferCleanup(env.Close)
		h.reply(providertest.Turn{ID: "r1", Text: []string{"It works."}})
		st := open(env.Client("req-quiet"), cursortest.RunRequest("conv-quiet", "kg-model", "Hi"))
		finished(st)
		Expect(cursortest.Thinking(st.Messages())).To(BeEmpty())
	})
})
