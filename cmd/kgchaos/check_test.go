package main

import (
	"os"
	"path/filepath"

	. "github.com/onsi/ginkgo/v2"
	. "github.com/onsi/gomega"

	"keygate/domain/conversation"
	"keygate/domain/llm"
)

// history is what a store holds after turn 0 of conv (one Read round, then
// the answer), built from the same texts the fake provider sends.
func history(conv string) []conversation.Message {
	GinkgoHelper()
	user, err := conversation.NewText(conv+"-u0", llm.RoleUser, conversation.OriginRuntime, "<user_query>"+userText(conv, 0)+"</user_query>")
	Expect(err).NotTo(HaveOccurred())
	call, err := conversation.NewMessage(conversation.MessageSpec{ID: conv + "-a0", Role: llm.RoleAssistant, Origin: conversation.OriginAssistant,
		Assistant: &llm.Assistant{Text: "Let me read it.", Calls: []llm.ToolCall{{CallID: callID(conv, 0, 0), Name: "Read", Arguments: []byte(`{"path":"notes.txt"}`)}}}})
	Expect(err).NotTo(HaveOccurred())
	result, err := conversation.NewMessage(conversation.MessageSpec{ID: conv + "-r0", Role: llm.RoleTool, Origin: conversation.OriginTool,
		ToolResult: &llm.ToolResult{CallID: callID(conv, 0, 0), Name: "Read", Content: "Buy milk."}})
	Expect(err).NotTo(HaveOccurred())
	answer, err := conversation.NewMessage(conversation.MessageSpec{ID: conv + "-a1", Role: llm.RoleAssistant, Origin: conversation.OriginAssistant,
		Assistant: &llm.Assistant{Text: answerText(conv, 0)}})
	Expect(err).NotTo(HaveOccurred())
	return []conversation.Message{user, call, result, answer}
}

var _ = Describe("the harness's checks", func() {
	conv := "r1-m0-c0"
	completed := &convRecord{id: conv, turns: []*turnRecord{{conv: conv, n: 0, completed: true}}}

	It("finds nothing wrong in a completed turn stored once", func() {
		var f findings
		judge(&f, completed, history(conv), "store")
		Expect(f).To(Equal(findings{}))
	})

	It("counts a completed turn's missing answer as lost and a tool result stored twice as duplicated", func() {
		h := history(conv)
		var f findings
		judge(&f, completed, []conversation.Message{h[0], h[1], h[2], h[2]}, "store")
		Expect(f.Lost).To(Equal(1))
		Expect(f.Duplicated).To(Equal(1))
		Expect(f.Examples).To(ConsistOf(ContainSubstring("answer missing"), ContainSubstring("tool result "+callID(conv, 0, 0)+" 2 times")))
	})

	It("does not count what is missing from a turn the client never saw complete", func() {
		var f findings
		judge(&f, &convRecord{id: conv, turns: []*turnRecord{{conv: conv, n: 0}}}, history(conv)[:1], "store")
		Expect(f.Lost).To(BeZero())
	})

	It("places a provider request on its turn's round: the last marked user message, the tool results after it", func() {
		body := `{"messages":[{"role":"system","content":"be brief"},{"role":"user","content":"` + userText(conv, 0) + `"},` +
			`{"role":"assistant","content":"done"},{"role":"user","content":[{"type":"text","text":"` + userText(conv, 1) + `"}]},` +
			`{"role":"assistant","content":null,"tool_calls":[]},{"role":"tool","tool_call_id":"x","content":"ok"}]}`
		k, ok := keyOf([]byte(body))
		Expect(ok).To(BeTrue())
		Expect(k).To(Equal(roundKey{conv: conv, turn: 1, round: 1}))
		_, ok = keyOf([]byte(`{"messages":[{"role":"user","content":"hello"}]}`))
		Expect(ok).To(BeFalse())
	})

	It("rewrites only the generated section of the report file", func() {
		path := filepath.Join(GinkgoT().TempDir(), "CHAOS.md")
		Expect(os.WriteFile(path, []byte("# Head\n\n"+sectionBegin+"\nold\n"+sectionEnd+"\n\n## By hand\n"), 0o600)).To(Succeed())
		Expect(writeSection(path, "new\n")).To(Succeed())
		Expect(os.ReadFile(path)).To(BeEquivalentTo("# Head\n\n" + sectionBegin + "\n\nnew\n" + sectionEnd + "\n\n## By hand\n"))
	})
})

var _ = Describe("the harness's verdict", func() {
	It("fails both forms on a lost message and on a provider request without its turn's message", func() {
		for _, short := range []bool{false, true} {
			lost := &report{Settings: settings{Short: short}, Turns: 1, Completed: 1, Store: findings{Lost: 1}}
			Expect(lost.violations()).To(ConsistOf(ContainSubstring("missing from the stored conversations")))
			unplaced := &report{Settings: settings{Short: short}, Turns: 1, Completed: 1, UnknownCalls: 1}
			Expect(unplaced.violations()).To(ConsistOf(ContainSubstring("without a turn marker")))
		}
	})

	It("fails both forms when no turn completed, and on a panic in a replica's log", func() {
		for _, short := range []bool{false, true} {
			none := &report{Settings: settings{Short: short}, Turns: 3}
			Expect(none.violations()).To(ConsistOf(ContainSubstring("no turn completed")))
			panicked := &report{Settings: settings{Short: short}, Turns: 1, Completed: 1, Panics: 1}
			Expect(panicked.violations()).To(ConsistOf(ContainSubstring("1 panics")))
		}
	})

	It("fails both forms on a message stored twice", func() {
		for _, short := range []bool{false, true} {
			dup := &report{Settings: settings{Short: short}, Turns: 1, Completed: 1, Store: findings{Duplicated: 1}}
			Expect(dup.violations()).To(ConsistOf(ContainSubstring("duplicated")))
		}
	})
})
