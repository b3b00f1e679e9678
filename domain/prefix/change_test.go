package prefix_test

import (
	. "github.com/onsi/ginkgo/v2"
	. "github.com/onsi/gomega"

	"keygate/domain/conversation"
	"keygate/domain/llm"
	"keygate/domain/prefix"
)

var _ = Describe("prefix.ChangesBetween", func() {
	text := func(id, t string) llm.Message {
		return llm.Message{ID: id, Role: llm.RoleUser, Parts: []llm.Part{{Kind: llm.PartText, Text: t}}}
	}
	var previous, next llm.Request

	BeforeEach(func() {
		previous = llm.Request{Model: "m", PromptName: "agent", Instructions: "sys", Messages: []llm.Message{
			text(conversation.RequestContextID("e1"), "env"), text(conversation.ContextID(conversation.ContextMCP, "e1"), "mcp"),
			text(conversation.ContextID(conversation.ContextMode, "e1"), "agent"), text(conversation.RuntimeID("e1"), "hi"),
		}}
		next = previous
		next.Messages = append(append([]llm.Message{}, previous.Messages...), llm.Message{ID: "r:assistant:0", Role: llm.RoleAssistant,
			Assistant: &llm.Assistant{Text: "hello"}})
	})

	appendContext := func(r *llm.Request, ch conversation.ContextChannel) {
		r.Messages = append(r.Messages, text(conversation.ContextID(ch, "e2"), "changed"), text(conversation.RuntimeID("e2"), "more"))
	}

	DescribeTable("names what the later request shows, whether or not the prefix broke",
		func(mutate func(n *llm.Request), want ...prefix.Change) {
			mutate(&next)
			got := prefix.ChangesBetween(prefix.ShapeOf(previous), prefix.ShapeOf(next))
			if len(want) == 0 {
				Expect(got).To(BeEmpty())
			} else {
				Expect(got).To(Equal(want))
			}
		},
		Entry("nothing: the next turn of the same conversation", func(n *llm.Request) {
			n.Messages = append(n.Messages, text(conversation.RuntimeID("e2"), "more"))
		}),
		Entry("a mode switch: another prompt name", func(n *llm.Request) {
			n.PromptName = "plan"
			appendContext(n, conversation.ContextMode)
		}, prefix.ChangeModeSwitch),
		Entry("a model switch: another upstream model", func(n *llm.Request) { n.Model = "other" }, prefix.ChangeModelSwitch),
		Entry("an MCP change: an MCP message appended", func(n *llm.Request) { appendContext(n, conversation.ContextMCP) }, prefix.ChangeMCP),
		Entry("a context change: an environment message appended", func(n *llm.Request) { appendContext(n, conversation.ContextEnvironment) }, prefix.ChangeContext),
		Entry("a context change: an editor message appended", func(n *llm.Request) { appendContext(n, conversation.ContextEditor) }, prefix.ChangeContext),
		Entry("a mode message where the prompt names are unknown", func(n *llm.Request) {
			n.PromptName = ""
			appendContext(n, conversation.ContextMode)
		}, prefix.ChangeModeSwitch),
		Entry("a mode message of the same mode names no switch", func(n *llm.Request) { appendContext(n, conversation.ContextMode) }),
		Entry("several at once, each once, in a fixed order", func(n *llm.Request) {
			n.Model, n.PromptName = "other", "ask"
			appendContext(n, conversation.ContextEditor)
			appendContext(n, conversation.ContextMCP)
			n.Messages = append(n.Messages, text(conversation.ContextID(conversation.ContextEnvironment, "e3"), "env 3"))
		}, prefix.ChangeModeSwitch, prefix.ChangeModelSwitch, prefix.ChangeMCP, prefix.ChangeContext),
		Entry("a context message kept through a compaction is no change", func(n *llm.Request) {
			n.Messages = []llm.Message{previous.Messages[1], text("runtime:summary:auto:r:0", "summary"), text(conversation.RuntimeID("e2"), "more")}
		}),
	)

	It("names each change", func() {
		Expect([]string{prefix.ChangeModeSwitch.String(), prefix.ChangeModelSwitch.String(), prefix.ChangeMCP.String(), prefix.ChangeContext.String(),
			prefix.Change(0).String()}).To(Equal([]string{"mode switch", "model switch", "MCP change", "context change", "unknown"}))
	})
})
