package agent_test

import (
	. "github.com/onsi/ginkgo/v2"
	. "github.com/onsi/gomega"

	"keygate/adapters/cursor/cursortest"
	"keygate/adapters/provider/providertest"
)

var _ = Describe("Handler on the client's own checkpoint", func() {
	f := useFixture()

	It("SETs none of the blobs the client's checkpoint refers to, even as a process that never sent them", func() {
		f.h.reply(providertest.Turn{ID: "r1", Text: []string{"First."}})
		finished(open(f.c, cursortest.RunRequest("conv-held", "kg-model", "Hi")))
		held := f.c.Checkpoint()
		Expect(held.GetRootPromptMessagesJson()).NotTo(BeEmpty())
		Expect(held.GetTurns()).NotTo(BeEmpty())

		// A new process remembers nothing it SET: only the checkpoint says
		// what the client holds.
		f.h.restart()
		f.c.Rebind(f.h.env.URL, f.h.env.HTTP1)
		f.h.reply(providertest.Turn{ID: "r2", Text: []string{"Second."}})
		st := finished(open(f.c.WithRequestID("req-2"),
			cursortest.Request("conv-held", "kg-model", cursortest.UserMessageAction("m2", "Again"), held)))
		Expect(st.Texts()).To(Equal([]string{"Second."}))

		var sets []string
		for _, m := range st.Content() {
			if a := m.GetKvServerMessage().GetSetBlobArgs(); a != nil {
				sets = append(sets, string(a.GetBlobId()))
			}
		}
		Expect(sets).NotTo(BeEmpty(), "the new turn's blobs are SET")
		for _, ids := range [][][]byte{held.GetRootPromptMessagesJson(), held.GetTurns()} {
			for _, id := range ids {
				Expect(sets).NotTo(ContainElement(string(id)))
			}
		}
	})
})
