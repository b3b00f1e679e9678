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

var _ = Describe("Engine resuming a round the store lost, from the client's copy", func() {
	var h *harness
	BeforeEach(func() { h = newHarness(memoryBackend, run.Limits{}) })

	readCall := func(id, path string, index int) llm.ToolCall {
		return llm.ToolCall{Index: index, CallID: id, Name: "Read", Arguments: []byte(`{"path":"` + path + `"}`)}
	}
	resume := func(roundID string, held llm.Assistant, msgs ...conversation.Message) run.PreparedRun {
		p := h.prepared(msgs...)
		p.Action = run.Action{Kind: run.ActionResume, PendingRoundID: roundID, PendingCalls: &held}
		return p
	}

	It("runs the calls the client still holds before any model call and asks the model once, after them", func() {
		h.enqueue(text("both read"))
		held := llm.Assistant{Text: "Let me read both.", Calls: []llm.ToolCall{readCall("c1", "a", 0), readCall("c2", "b", 1)}}
		t := &runtest.Transport{OnEvent: answerCalls}
		o := finish(h.start(resume("gone-run:round:0", held, userText("e1", "read a and b")), t))
		Expect(o.Status).To(Equal(run.Completed))
		rounds := eventsOf[run.ExecuteToolRound](t.Events())
		Expect(rounds).To(HaveLen(1))
		Expect(rounds[0].Calls).To(HaveLen(2))
		Expect(rounds[0].Lead.Text).To(Equal("Let me read both."), "the round's text goes with the open round")
		Expect(h.provider.Calls()).To(HaveLen(1), "the lost round is not sampled again")
		Expect(texts(h.provider.Calls()[0].Request.Messages)).To(Equal([]string{
			"user: read a and b", "assistant: Let me read both.Read,Read", "tool: r-c1", "tool: r-c2"}))
	})

	It("runs only the calls history does not answer when the client's checkpoint was published mid-round", func() {
		h.enqueue(text("done"))
		lost := "gone-run:round:0"
		round, err := toolround.New(lost, llm.Assistant{Text: "Reading.", Calls: []llm.ToolCall{readCall("c1", "a", 0), readCall("c2", "b", 1)}})
		Expect(err).NotTo(HaveOccurred())
		_, first, err := round.Commit(llm.ToolResult{CallID: "c1", Content: "r-c1"})
		Expect(err).NotTo(HaveOccurred())
		held := llm.Assistant{Calls: []llm.ToolCall{readCall("c1", "a", 0), readCall("c2", "b", 1)}}
		t := &runtest.Transport{OnEvent: answerCalls}
		o := finish(h.start(resume(lost, held, append([]conversation.Message{userText("e1", "read")}, first.Messages...)...), t))
		Expect(o.Status).To(Equal(run.Completed))
		rounds := eventsOf[run.ExecuteToolRound](t.Events())
		Expect(rounds).To(HaveLen(1))
		Expect(rounds[0].Calls).To(ConsistOf(HaveField("CallID", "c2")), "the answered call does not run twice")
		Expect(rounds[0].Lead.Text).To(BeEmpty(), "the round's text is in history already, with its first call")
		Expect(h.provider.Calls()).To(HaveLen(1))
		Expect(texts(h.provider.Calls()[0].Request.Messages)).To(Equal([]string{
			"user: read", "assistant: Reading.Read", "tool: r-c1", "assistant: Read", "tool: r-c2"}))
	})

	It("trusts the store over the client's copy when the store holds the named round", func() {
		h.enqueue(tools(call("call-1", "Read", `{"path":"a"}`)), text("done"))
		first := h.start(h.prepared(userText("e1", "go")), &runtest.Transport{OnEvent: answerCalls})
		Expect(finish(first).Status).To(Equal(run.Completed))
		stored := conversation.ToolRoundID(first.RunID(), 0)
		t := &runtest.Transport{OnEvent: answerCalls}
		// The client's copy disagrees with the store (a call the round never
		// had): the store's word counts.
		o := finish(h.start(resume(stored, llm.Assistant{Calls: []llm.ToolCall{readCall("call-1", "a", 0), readCall("call-9", "z", 1)}}), t))
		Expect(o.Status).To(Equal(run.Completed))
		Expect(eventsOf[run.ExecuteToolRound](t.Events())).To(BeEmpty(), "a settled round is not run again")
		Expect(h.provider.Calls()).To(HaveLen(2), "and the finished answer is not sampled again")
	})
})
