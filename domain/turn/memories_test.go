package turn_test

import (
	"strings"

	. "github.com/onsi/ginkgo/v2"
	. "github.com/onsi/gomega"

	"keygate/domain/conversation"
	"keygate/domain/turn"
)

var _ = Describe("Memories", func() {
	It("renders nothing without memories, and a clearing context that says so", func() {
		Expect(turn.Memories(nil).Compile()).To(BeEmpty())
		Expect(turn.Memories(nil).Context()).To(Equal(turn.Context{Channel: conversation.ContextMemories, Text: turn.NoMemories, Clears: true}))
	})

	It("renders each memory in its order with its title", func() {
		out := turn.Memories{{Title: `Use "tabs"`, Knowledge: "Indent with tabs."}, {Title: "Tests", Knowledge: "Write ginkgo specs."}}.Compile()
		Expect(out).To(HavePrefix("<user_memories>\n"))
		Expect(out).To(ContainSubstring("<memory title=\"Use &quot;tabs&quot;\">\nIndent with tabs.\n</memory>\n<memory title=\"Tests\">\nWrite ginkgo specs.\n</memory>"))
	})

	It("cuts a long memory and counts the memories over the channel's bound", func() {
		var m turn.Memories
		for range 20 {
			m = append(m, turn.Memory{Title: "t", Knowledge: strings.Repeat("k", 3000)})
		}
		out := m.Compile()
		Expect(len(out)).To(BeNumerically("<=", turn.MemoriesLimit+64))
		Expect(strings.Count(out, "<memory ")).To(Equal(7)) // 7 × ~2 KiB fit in 16 KiB
		Expect(out).To(ContainSubstring("[13 more memories not shown]"))
	})
})
