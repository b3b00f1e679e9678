package prefix_test

import (
	. "github.com/onsi/ginkgo/v2"
	. "github.com/onsi/gomega"

	"keygate/domain/conversation"
	"keygate/domain/llm"
	"keygate/domain/turn"
)

var _ = Describe("Prefix stability across turns", func() {
	var s *session

	BeforeEach(func() {
		s = newSession()
	})

	DescribeTable("request context keeps the provider prefix stable",
		func(play func(s *session) (first, second llm.Request), check func(first, second llm.Request)) {
			first, second := play(s)
			check(first, second)
		},
		Entry("two turns with identical request context: the first history is an exact prefix of the second, the instructions are identical, exactly one request-context message exists",
			func(s *session) (llm.Request, llm.Request) {
				return s.userTurn("e1", "ctx A", "one"), s.userTurn("e2", "ctx A", "two")
			},
			func(first, second llm.Request) {
				Expect(first).To(BeStablePrefixOf(second))
				Expect(second.Instructions).To(Equal(first.Instructions))
				Expect(contextMessages(second.Messages)).To(Equal([]string{"request-context:e1=ctx A"}))
			}),
		Entry("changed context: one new context message at the tail, before the new runtime message, every earlier message unchanged",
			func(s *session) (llm.Request, llm.Request) {
				return s.userTurn("e1", "ctx A", "one"), s.userTurn("e2", "ctx B", "two")
			},
			func(first, second llm.Request) {
				Expect(first).To(BeStablePrefixOf(second))
				added := second.Messages[len(first.Messages)+1:]
				Expect(added).To(HaveLen(2))
				Expect(added[0].ID).To(Equal("request-context:e2"))
				Expect(added[1].ID).To(Equal("runtime:e2"))
				Expect(contextMessages(second.Messages)).To(HaveLen(2))
			}),
		Entry("queued_user_message_after_turn_ended_starts_the_next_turn: the next provider history starts with the previous request's history",
			func(s *session) (llm.Request, llm.Request) {
				return s.userTurn("e1", "", "one"), s.userTurn("e2", "", "two")
			},
			func(first, second llm.Request) {
				Expect(first).To(BeStablePrefixOf(second))
				Expect(second.Messages).To(HaveLen(len(first.Messages) + 2))
			}),
	)

	It("context reversion A → B → A: three distinct context events, in order", func() {
		s.userTurn("e1", "ctx A", "one")
		s.userTurn("e2", "ctx B", "two")
		third := s.userTurn("e3", "ctx A", "three")
		Expect(contextMessages(third.Messages)).To(Equal([]string{
			"request-context:e1=ctx A", "request-context:e2=ctx B", "request-context:e3=ctx A"}))
		Expect(s.requests[0]).To(BeStablePrefixOf(s.requests[1]))
		Expect(s.requests[1]).To(BeStablePrefixOf(s.requests[2]))
	})

	It("retry of one runtime event: no duplicate or conflicting context message", func() {
		s.userTurn("e1", "ctx A", "one")
		in := turn.Input{EventID: "e2", Trigger: turn.TriggerUserMessage, Contexts: []turn.Context{{Text: "ctx B"}}, Runtime: turn.RuntimeParts("two", turn.Selection{})}
		base := s.log.Head()
		s.start(in)
		first := s.call()

		By("the retry starts again from the same base, with the context recompiled differently")
		retried := in
		retried.Contexts = []turn.Context{{Text: "ctx B, recompiled"}}
		stored, err := s.log.Messages(s.log.Head().ID())
		Expect(err).NotTo(HaveOccurred())
		retried.Stored = stored[len(stored)-2 : len(stored)-1]
		baseHistory, err := s.log.Messages(base.ID())
		Expect(err).NotTo(HaveOccurred())
		initial, err := turn.InitialMessages(baseHistory, retried)
		Expect(err).NotTo(HaveOccurred())
		d, err := s.log.Apply(conversation.BranchFrom(s.log.Head().ID(), base, initial...))
		Expect(err).NotTo(HaveOccurred(), "no ErrMessageConflict")
		Expect(d.Outcome).NotTo(Equal(conversation.Create), "the same checkpoint is reused")

		second := s.call()
		Expect(second).To(Equal(first))
		Expect(contextMessages(second.Messages)).To(Equal([]string{"request-context:e1=ctx A", "request-context:e2=ctx B"}))

		By("the same retry applied on top of its own messages adds nothing")
		again, err := turn.InitialMessages(s.history(), retried)
		Expect(err).NotTo(HaveOccurred())
		Expect(again).To(BeEmpty())
	})

	It("encode/decode round trip: request-context identity and content survive", func() {
		s.userTurn("e1", "<user_info>\nOS: linux & bash\n</user_info>", "one")
		ctx := s.history()[0]
		back, err := conversation.DecodeMessage(ctx.Encode())
		Expect(err).NotTo(HaveOccurred())
		Expect(back.ID()).To(Equal("request-context:e1"))
		Expect(back.Origin()).To(Equal(conversation.OriginPrompt))
		Expect(back.Role()).To(Equal(llm.RoleUser))
		Expect(back.Text()).To(Equal(ctx.Text()))
		Expect(back.Equal(ctx)).To(BeTrue())
	})

	It("automatic compaction: only the latest context is kept outside the summary", func() {
		s.userTurn("e1", "ctx A", "one")
		s.userTurn("e2", "ctx B", "two")
		current := s.start(turn.Input{EventID: "e3", Trigger: turn.TriggerUserMessage, Contexts: []turn.Context{{Text: "ctx B"}},
			Runtime: turn.RuntimeParts("three", turn.Selection{})})
		s.compactAutomatically(current)
		after := s.call()
		Expect(contextMessages(after.Messages)).To(Equal([]string{"request-context:e2=ctx B"}))
		Expect(after.Messages[1].ID).To(Equal("runtime:summary:auto:req-auto:0"))
		Expect(after.Messages[2].ID).To(Equal("runtime:e3"))

		By("the compacted state is the stable prefix of the next turn")
		s.answer("three done")
		Expect(after).To(BeStablePrefixOf(s.userTurn("e4", "ctx B", "four")))
	})

	It("manual compaction keeps the summary alone and re-projects the context on the next user turn", func() {
		s.userTurn("e1", "ctx A", "one")
		summary, err := conversation.NewText(conversation.ManualSummaryID("req-sum"), llm.RoleUser, conversation.OriginRuntime,
			"<conversation_summary>\nall\n</conversation_summary>")
		Expect(err).NotTo(HaveOccurred())
		_, err = s.log.Apply(conversation.ReplaceWith(s.log.Head().ID(), s.log.Root(), summary))
		Expect(err).NotTo(HaveOccurred())

		next := s.userTurn("e2", "ctx A", "two")
		Expect(next.Messages).To(HaveLen(3))
		Expect(next.Messages[0].ID).To(Equal("runtime:summary:req-sum"))
		Expect(contextMessages(next.Messages)).To(Equal([]string{"request-context:e2=ctx A"}))
	})

	It("runtime templates do not embed conversation-level rules or MCP metadata", func() {
		rc := turn.RequestContext{Rules: []turn.Rule{{Path: "/w/.cursor/rules/style.mdc", Content: "ALWAYS TABS"}}}
		mcp := turn.MCP{Servers: []turn.MCPServer{{Name: "jira", Tools: []turn.MCPTool{{Name: "create_issue"}}}}}
		s.start(turn.Input{EventID: "e1", Trigger: turn.TriggerUserMessage, Contexts: []turn.Context{{Text: rc.Compile()},
			{Channel: conversation.ContextMCP, Text: mcp.Compile()}},
			Runtime: turn.RuntimeParts("fix it", turn.Selection{Files: []turn.File{{Path: "/a.go", Content: "package a"}}})})
		req := s.call()
		Expect(req.Messages).To(HaveLen(3))
		ctx, runtime := req.Messages[0].Parts[0].Text+req.Messages[1].Parts[0].Text, req.Messages[2].Parts[0].Text
		Expect(ctx).To(ContainSubstring("ALWAYS TABS"))
		Expect(ctx).To(ContainSubstring("create_issue"))
		Expect(runtime).To(ContainSubstring(`<file path="/a.go">`))
		Expect(runtime).NotTo(ContainSubstring("ALWAYS TABS"))
		Expect(runtime).NotTo(ContainSubstring("create_issue"))
		Expect(req.Instructions).NotTo(ContainSubstring("ALWAYS TABS"), "volatile context never enters the system prompt")
	})
})
