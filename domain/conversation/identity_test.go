package conversation_test

import (
	. "github.com/onsi/ginkgo/v2"
	. "github.com/onsi/gomega"

	"keygate/domain/conversation"
)

var _ = Describe("Message identity", func() {
	DescribeTable("every message kind has one deterministic id format",
		func(got, want string) { Expect(got).To(Equal(want)) },
		Entry("a request context is request-context:<event>", conversation.RequestContextID("ev1"), "request-context:ev1"),
		Entry("the environment's channel keeps that id", conversation.ContextID(conversation.ContextEnvironment, "ev1"), "request-context:ev1"),
		Entry("another channel's is request-context/<channel>:<event>", conversation.ContextID(conversation.ContextMCP, "ev1"), "request-context/mcp:ev1"),
		Entry("a runtime turn is runtime:<event>", conversation.RuntimeID("ev1"), "runtime:ev1"),
		Entry("a run id is the Cursor request id plus 8 hex digits", conversation.RunID("req", 0xbeef), "req:0000beef"),
		Entry("a final assistant is <run>:assistant:<index>", conversation.AssistantID("run", 3), "run:assistant:3"),
		Entry("a tool round is <run>:round:<index>", conversation.ToolRoundID("run", 3), "run:round:3"),
		Entry("a resumed tool round is <run>:round:resume", conversation.ResumedToolRoundID("run"), "run:round:resume"),
		Entry("a tool-call part is <round>:<call>:assistant", conversation.ToolCallPartID("r", "c"), "r:c:assistant"),
		Entry("a tool result is <round>:<call>:result", conversation.ToolResultID("r", "c"), "r:c:result"),
		Entry("a manual summary is runtime:summary:<run>", conversation.ManualSummaryID("run"), "runtime:summary:run"),
		Entry("an automatic summary is runtime:summary:auto:<run>:<index>", conversation.AutoSummaryID("run", 2), "runtime:summary:auto:run:2"),
		Entry("a first provider attempt is <run>:<index>", conversation.ProviderCallID("run", 1, 0), "run:1"),
		Entry("a retried provider attempt adds :retry-N", conversation.ProviderCallID("run", 1, 2), "run:1:retry-2"),
		Entry("an alias attempt adds :alias:<attempt>", conversation.AliasAttemptID("run:1", 1), "run:1:alias:1"),
	)

	Describe("UserEventID", func() {
		It("is stable for the same input and content", func() {
			Expect(conversation.UserEventID("m1", "hello")).To(Equal(conversation.UserEventID("m1", "hello")))
			Expect(conversation.UserEventID("m1", "hello")).To(HavePrefix("cursor:user:m1:"))
		})
		It("changes when the rendered content of the input changes", func() {
			Expect(conversation.UserEventID("m1", "hello")).NotTo(Equal(conversation.UserEventID("m1", "hello!")))
		})
	})

	Describe("RequestContextEvent", func() {
		It("recovers the event of a request-context id", func() {
			event, ok := conversation.RequestContextEvent(conversation.RequestContextID("ev9"))
			Expect(ok).To(BeTrue())
			Expect(event).To(Equal("ev9"))
		})
		It("recognises other ids as not request context", func() {
			_, ok := conversation.RequestContextEvent(conversation.RuntimeID("ev9"))
			Expect(ok).To(BeFalse())
		})
	})

	Describe("ContextOf", func() {
		It("recovers the channel and the event of every channel's id", func() {
			for _, ch := range conversation.ContextChannels {
				got, event, ok := conversation.ContextOf(conversation.ContextID(ch, "cursor:user:m1:ab"))
				Expect(ok).To(BeTrue())
				Expect(got).To(Equal(ch))
				Expect(event).To(Equal("cursor:user:m1:ab"))
			}
		})
		DescribeTable("refuses ids that are not request context",
			func(id string) {
				_, _, ok := conversation.ContextOf(id)
				Expect(ok).To(BeFalse())
			},
			Entry("a runtime message", "runtime:ev9"),
			Entry("no event", "request-context:"),
			Entry("a channel without an event", "request-context/mcp:"),
			Entry("a channel without a name", "request-context/:ev9"),
			Entry("another prefix", "request-contexts:ev9"),
		)
	})
})
