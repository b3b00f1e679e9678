package run_test

import (
	. "github.com/onsi/ginkgo/v2"
	. "github.com/onsi/gomega"

	"keygate/app/run"
	"keygate/app/run/runtest"
	"keygate/domain/conversation"
	"keygate/domain/llm"
	"keygate/domain/toolround"
)

// kindsOf lists the events as short names, for order assertions.
func kindsOf(evs []run.Event) []string {
	var out []string
	for _, ev := range evs {
		switch x := ev.(type) {
		case run.CycleInterrupted:
			out = append(out, "interrupted")
		case run.MessagesCommitted:
			out = append(out, x.Cause.Kind.String())
		case run.ExecuteToolRound:
			out = append(out, "execute")
		case run.Ended:
			out = append(out, "ended")
		}
	}
	return out
}

var _ = Describe("Handle commands", func() {
	var (
		h  *harness
		t  *runtest.Transport
		hd *run.Handle
	)
	BeforeEach(func() {
		h = newHarness(memoryBackend, run.Limits{})
		t = &runtest.Transport{}
	})

	When("a newer user message breaks a running model cycle", func() {
		var delivery run.Delivery
		BeforeEach(func() {
			h.server.Enqueue(stalled("thinking about "))
			h.enqueue(text("answer to the follow-up"))
			hd = h.start(h.prepared(userText("e1", "first")), t)
			Eventually(t.Text).Should(Equal("thinking about "))
			delivery = hd.BreakMessages([]conversation.Message{userText("e2", "follow-up")})
			Expect(finish(hd).Status).To(Equal(run.Completed))
			Eventually(t.Done()).Should(BeClosed())
		})

		It("applies the command and emits one cycle boundary before the runtime commit", func() {
			Expect(delivery).To(Equal(run.Applied))
			Expect(kindsOf(t.Events())).To(Equal([]string{
				"initial_messages", "interrupted", "interrupted_output", "runtime_event", "final_turn", "ended"}))
			appended := eventsOf[run.MessagesCommitted](t.Events())[2]
			Expect(appended.Cause.EventID).To(Equal("e2"))
			Expect(appended.Barrier).NotTo(BeNil())
		})

		It("restarts only the model cycle, with the follow-up in the next call", func() {
			Expect(h.provider.Calls()).To(HaveLen(2))
			Expect(texts(h.provider.Calls()[1].Request.Messages)).To(Equal([]string{
				"user: first", "assistant: thinking about ", "user: follow-up"}))
			Expect(h.provider.Calls()[1].RunID).To(Equal(hd.RunID()))
		})
	})

	When("a newer user message arrives while the provider holds back its headers", func() {
		It("stops waiting and runs the model with the new message", func() {
			h.server.Enqueue(headersStalled())
			h.enqueue(text("fresh answer"))
			hd = h.start(h.prepared(userText("e1", "first")), t)
			Eventually(h.server.Requests).Should(HaveLen(1))
			Expect(hd.BreakMessages([]conversation.Message{userText("e2", "never mind")})).To(Equal(run.Applied))
			Expect(finish(hd).Status).To(Equal(run.Completed))
			Eventually(h.server.Gone()).Should(Receive())
			Expect(texts(h.provider.Calls()[1].Request.Messages)).To(Equal([]string{"user: first", "user: never mind"}))
		})
	})

	When("messages are inserted while the model runs", func() {
		It("appends them after the answer and runs the model again", func() {
			h.server.Enqueue(stalled("first answer"))
			h.enqueue(text("second answer"))
			hd = h.start(h.prepared(userText("e1", "first")), t)
			Eventually(t.Text).Should(Equal("first answer"))
			Expect(hd.InsertMessages(userText("e2", "also this"))).To(Equal(run.Applied))
			h.server.Release()
			Expect(finish(hd).Status).To(Equal(run.Completed))
			Expect(eventsOf[run.CycleInterrupted](t.Events())).To(BeEmpty())
			Expect(texts(h.provider.Calls()[1].Request.Messages)).To(Equal([]string{
				"user: first", "assistant: first answer", "user: also this"}))
		})
	})

	When("a newer user message arrives while tools still run", func() {
		BeforeEach(func() {
			h.enqueue(tools(call("call-a", "Read", `{}`), call("call-b", "Shell", `{}`), call("call-c", "Shell", `{}`)),
				text("after the break"))
			t.OnEvent = func(hd *run.Handle, ev run.Event) {
				if _, ok := ev.(run.ExecuteToolRound); ok {
					hd.ToolResult(llm.ToolResult{CallID: "call-a", Content: "A"})
					hd.InsertMessages(userText("e2", "queued note"))
					hd.BreakMessages([]conversation.Message{userText("e3", "stop, do this")},
						llm.ToolResult{CallID: "call-c", Content: "C so far"})
				}
			}
			hd = h.start(h.prepared(userText("e1", "go")), t)
			Expect(finish(hd).Status).To(Equal(run.Completed))
		})

		It("completes pending calls with the detached result or the interruption error", func() {
			Expect(texts(h.provider.Calls()[1].Request.Messages)).To(Equal([]string{
				"user: go", "assistant: Read,Shell,Shell", "tool: A",
				"tool: " + toolround.InterruptedResult, "tool: C so far",
				"user: queued note", "user: stop, do this"}))
		})

		It("keeps a valid history", func() {
			validHistory(h.history())
		})
	})

	When("messages are inserted while tools run", func() {
		It("appends them only after the round settled", func() {
			h.enqueue(tools(call("call-a", "Read", `{}`)), text("done"))
			t.OnEvent = func(hd *run.Handle, ev run.Event) {
				if _, ok := ev.(run.ExecuteToolRound); ok {
					hd.InsertMessages(userText("e2", "by the way"))
					hd.ToolResult(llm.ToolResult{CallID: "call-a", Content: "A"})
				}
			}
			hd = h.start(h.prepared(userText("e1", "go")), t)
			Expect(finish(hd).Status).To(Equal(run.Completed))
			Expect(texts(h.provider.Calls()[1].Request.Messages)).To(Equal([]string{
				"user: go", "assistant: Read", "tool: A", "user: by the way"}))
		})
	})

	When("a message arrives while the final turn is committed", func() {
		It("answers RunClosing and the run completes", func() {
			h.enqueue(text("bye"))
			var late run.Delivery
			t.Hold = true
			t.OnEvent = func(hd *run.Handle, ev run.Event) {
				if c, ok := ev.(run.MessagesCommitted); ok && c.Barrier != nil {
					if c.Cause.Kind == run.CauseFinalTurn {
						late = hd.InsertMessages(userText("e2", "too late"))
					}
					c.Barrier.Ack()
				}
			}
			hd = h.start(h.prepared(userText("e1", "go")), t)
			Expect(finish(hd).Status).To(Equal(run.Completed))
			Expect(late).To(Equal(run.RunClosing))
			Expect(hd.InsertMessages(userText("e3", "after the end"))).To(Equal(run.RunEnded))
			Expect(h.provider.Calls()).To(HaveLen(1))
		})
	})

	When("a tool result arrives while the model runs", func() {
		It("fails the run as a client error", func() {
			h.server.Enqueue(stalled("hm"))
			hd = h.start(h.prepared(userText("e1", "go")), t)
			Eventually(t.Text).Should(Equal("hm"))
			hd.ToolResult(llm.ToolResult{CallID: "stray", Content: "?"})
			o := finish(hd)
			Expect(o.Status).To(Equal(run.Failed))
			Expect(o.Failure.Category).To(Equal(run.CategoryClient))
			Expect(o.Failure.Message).To(ContainSubstring("received a tool result while the model was running"))
		})
	})
})
