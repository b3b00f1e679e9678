package run_test

import (
	"context"

	. "github.com/onsi/ginkgo/v2"
	. "github.com/onsi/gomega"

	"keygate/app/run"
	"keygate/app/run/runtest"
	"keygate/domain/conversation"
	"keygate/domain/llm"
)

var _ = Describe("Engine tool-round guard", func() {
	var (
		h *harness
		o run.Outcome
	)
	BeforeEach(func() {
		h = newHarness(memoryBackend, run.Limits{MaxToolRounds: 2})
		h.enqueue(tools(call("c1", "Read", `{}`)), tools(call("c2", "Read", `{}`)), tools(call("c3", "Read", `{}`)))
		o = finish(h.start(h.prepared(userText("e1", "loop forever")), &runtest.Transport{OnEvent: answerCalls}))
	})

	It("ends the run with a message saying the limit was reached", func() {
		Expect(o.Status).To(Equal(run.Failed))
		Expect(o.Failure.Category).To(Equal(run.CategoryLimit))
		Expect(o.Failure.Message).To(ContainSubstring("stopped after 2 tool rounds"))
		Expect(h.requestBodies()).To(HaveLen(3))
	})

	It("completes the refused round's calls as tool errors, so history stays valid", func() {
		validHistory(h.history())
		last, ok := h.history()[len(h.history())-1].ToolResult()
		Expect(ok).To(BeTrue())
		Expect(last.IsError).To(BeTrue())
		Expect(last.Content).To(ContainSubstring("Not executed"))
	})
})

var _ = Describe("Engine subagents", func() {
	It("runs a child run on its own conversation and returns its answer as the parent's tool result", func() {
		h := newHarness(memoryBackend, run.Limits{})
		h.enqueue(tools(call("task-1", "Task", `{"prompt":"find the bug"}`)), text("the bug is in a.go"), text("Fixed."))
		var child *run.Handle
		childConv := h.conv + ":subagent"
		t := &runtest.Transport{OnEvent: func(parent *run.Handle, ev run.Event) {
			x, ok := ev.(run.ExecuteToolRound)
			if !ok {
				return
			}
			p := h.prepared(userText("sub-e1", "find the bug"))
			p.ConversationID, p.Kind = childConv, run.KindSubagent
			p.ParentRunID, p.ParentToolCallID = parent.RunID(), x.Calls[0].CallID
			var err error
			child, err = h.engine.Start(h.ctx, p)
			Expect(err).NotTo(HaveOccurred())
			ct := (&runtest.Transport{}).Drive(child)
			go func() {
				defer GinkgoRecover()
				Expect(finish(child).Status).To(Equal(run.Completed))
				Eventually(ct.Done()).Should(BeClosed())
				parent.ToolResult(llm.ToolResult{CallID: x.Calls[0].CallID, Content: ct.Text()})
			}()
		}}
		parent := h.start(h.prepared(userText("e1", "fix it")), t)
		Expect(finish(parent).Status).To(Equal(run.Completed))

		stored, err := h.b.runs.Run(context.Background(), child.RunID())
		Expect(err).NotTo(HaveOccurred())
		Expect(stored.Kind).To(Equal("subagent"))
		Expect(stored.ParentRunID).To(Equal(parent.RunID()))
		Expect(stored.ParentToolCallID).To(Equal("task-1"))
		Expect(stored.ConversationID).To(Equal(childConv))

		parentHistory := h.history()
		res, _ := parentHistory[2].ToolResult()
		Expect(res.Content).To(Equal("the bug is in a.go"))
		Expect(ids(parentHistory)[3]).To(Equal(conversation.AssistantID(parent.RunID(), 1)))
	})
})
