package agent_test

import (
	"context"
	"fmt"
	"strings"
	"sync"

	. "github.com/onsi/ginkgo/v2"
	. "github.com/onsi/gomega"

	"keygate/adapters/cursor/agent"
	"keygate/adapters/cursor/cursortest"
	"keygate/adapters/provider/providertest"
	"keygate/domain/turn"
)

// recall is a Memories whose answer the spec changes between turns.
type recall struct {
	mu  sync.Mutex
	mem turn.Memories
}

func (r *recall) set(m ...turn.Memory) { r.mu.Lock(); r.mem = m; r.mu.Unlock() }

func (r *recall) Recall(context.Context) (turn.Memories, error) {
	r.mu.Lock()
	defer r.mu.Unlock()
	return append(turn.Memories(nil), r.mem...), nil
}

var _ = Describe("Handler giving the model the user's memories (kept by Keygate, never sent by the client)", func() {
	var (
		h   *harness
		mem *recall
		c   *cursortest.Client
		n   int
	)
	BeforeEach(func() {
		h, mem, n = newHarness(mainKind), &recall{}, 0
		env := h.handler(agent.Options{Memories: mem}, cursortest.FastTimings())
		c = env.Client("req-mem")
	})
	// turnWith plays one turn of conv and returns the body the provider
	// received for it.
	turnWith := func(conv, messageID, text string) string {
		n++
		h.reply(providertest.Turn{ID: fmt.Sprintf("r%d", n), Text: []string{"Noted."}})
		st := finished(open(c.WithRequestID(fmt.Sprintf("req-mem-%d", n)),
			cursortest.Request(conv, "kg-model", cursortest.UserMessageAction(messageID, text), c.Checkpoint())))
		Expect(st.EndError()).To(BeNil())
		reqs := h.provider.Requests()
		return string(reqs[len(reqs)-1].Body)
	}
	const tag = `<user_memories>`

	It("shows the memories once, appends them again only when they change, and says so when they are all deleted", func() {
		mem.set(turn.Memory{Title: "Style", Knowledge: "Always use tabs."})
		first := turnWith("conv-mem-1", "m1", "Format this.")
		Expect(first).To(ContainSubstring(`<memory title=\"Style\">\nAlways use tabs.\n</memory>`))

		second := turnWith("conv-mem-1", "m2", "Again.")
		Expect(strings.Count(second, tag)).To(Equal(1), "unchanged memories add nothing")
		prev, err := providertest.PromptSegments(mainKind, []byte(first))
		Expect(err).NotTo(HaveOccurred())
		next, err := providertest.PromptSegments(mainKind, []byte(second))
		Expect(err).NotTo(HaveOccurred())
		Expect(providertest.Retained(prev, next).Extends()).To(BeTrue(), "the prompt is a byte-stable prefix")

		mem.set(turn.Memory{Title: "Style", Knowledge: "Always use spaces."})
		third := turnWith("conv-mem-1", "m3", "And now?")
		Expect(strings.Count(third, tag)).To(Equal(2), "changed memories append a message of their own")
		Expect(strings.Index(third, "Always use spaces.")).To(BeNumerically(">", strings.Index(third, "Again.")))

		mem.set()
		fourth := turnWith("conv-mem-1", "m4", "Forget it.")
		Expect(fourth).To(ContainSubstring("The user has no memories now"))
	})

	It("says nothing about memories to a user who never had any", func() {
		Expect(turnWith("conv-mem-2", "m1", "Hi.")).NotTo(ContainSubstring("memories"))
	})
})
