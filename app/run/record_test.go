package run_test

import (
	. "github.com/onsi/ginkgo/v2"
	. "github.com/onsi/gomega"

	"keygate/app/run"
	"keygate/app/run/runtest"
	"keygate/domain/llm"
	"keygate/domain/projection"
)

var _ = Describe("A run that only records", func() {
	var h *harness
	BeforeEach(func() { h = newHarness(memoryBackend, run.Limits{}) })

	It("appends its messages, announces the final turn and never calls the model", func() {
		p := h.prepared(userText("shell-1", "$ ls\nREADME.md"))
		p.Action = run.Action{Kind: run.ActionRecord}
		t := &runtest.Transport{}
		o := finish(h.start(p, t))
		Expect(o.Status).To(Equal(run.Completed))
		Expect(h.server.Requests()).To(BeEmpty())
		Expect(ids(h.history())).To(Equal([]string{"runtime:shell-1"}))
		Eventually(t.Done()).Should(BeClosed())
		Expect(kindsOf(t.Events())).To(Equal([]string{"initial_messages", "final_turn", "ended"}))
	})

	It("with nothing to append ends on the head it found", func() {
		p := h.prepared()
		p.Action = run.Action{Kind: run.ActionRecord}
		t := &runtest.Transport{}
		Expect(finish(h.start(p, t)).Status).To(Equal(run.Completed))
		Eventually(t.Done()).Should(BeClosed())
		Expect(kindsOf(t.Events())).To(Equal([]string{"final_turn", "ended"}))
		Expect(h.server.Requests()).To(BeEmpty())
	})
})

var _ = Describe("Handle.SwitchPrompt", func() {
	It("sends the new instructions and tools on every model call after it", func() {
		h := newHarness(memoryBackend, run.Limits{})
		h.enqueue(tools(call("c1", "SwitchMode", `{"target_mode_id":"plan"}`)), text("Planned."))
		plan := projection.Prompt{Instructions: "You plan.", Tools: []llm.Tool{
			{Name: "CreatePlan", Description: "Propose a plan.", Parameters: []byte(`{"type":"object"}`)}}}
		t := &runtest.Transport{OnEvent: func(hd *run.Handle, ev run.Event) {
			if x, ok := ev.(run.ExecuteToolRound); ok {
				Expect(hd.SwitchPrompt(plan)).To(Equal(run.Applied))
				hd.ToolResult(llm.ToolResult{CallID: x.Calls[0].CallID, Content: "Switched to plan mode."})
			}
		}}
		Expect(finish(h.start(h.prepared(userText("e1", "plan it")), t)).Status).To(Equal(run.Completed))
		calls := h.provider.Calls()
		Expect(calls).To(HaveLen(2))
		Expect(calls[0].Request.Tools[0].Name).To(Equal("Read"))
		Expect(calls[1].Request.Instructions).To(Equal("You plan."))
		Expect(calls[1].Request.Tools).To(HaveLen(1))
		Expect(calls[1].Request.Tools[0].Name).To(Equal("CreatePlan"))
	})

	It("is refused once the run has ended", func() {
		h := newHarness(memoryBackend, run.Limits{})
		h.enqueue(text("Done."))
		hd := h.start(h.prepared(userText("e1", "hi")), &runtest.Transport{})
		finish(hd)
		Expect(hd.SwitchPrompt(projection.Prompt{})).To(Equal(run.RunEnded))
	})
})
