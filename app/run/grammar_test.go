package run_test

import (
	"time"

	. "github.com/onsi/ginkgo/v2"
	. "github.com/onsi/gomega"

	"keygate/app/run"
	"keygate/app/run/runtest"
	"keygate/domain/llm"
)

// twoCallsOneID is a cycle whose two tool calls share a call id.
var twoCallsOneID = []llm.Event{
	{Kind: llm.EventStart},
	{Kind: llm.EventToolCallStart, Index: 0, CallID: "dup", Name: "Read"},
	{Kind: llm.EventToolCallEnd, Index: 0},
	{Kind: llm.EventToolCallStart, Index: 1, CallID: "dup", Name: "Read"},
	{Kind: llm.EventToolCallEnd, Index: 1},
	{Kind: llm.EventDone, Finish: llm.FinishToolUse},
}

var _ = Describe("Engine event grammar", func() {
	var (
		h      *harness
		script *runtest.Script
		t      *runtest.Transport
	)
	BeforeEach(func() {
		h = newHarness(memoryBackend, run.Limits{MaxRetries: 1, RetryBase: time.Second})
		script = &runtest.Script{}
		h.restartWith(script)
		t = &runtest.Transport{}
	})

	DescribeTable("a broken stream is a failed attempt that is retried",
		func(broken runtest.Scripted, want string) {
			script.Enqueue(broken, runtest.Scripted{Events: runtest.TextEvents("fine")})
			hd := h.start(h.prepared(userText("e1", "go")), t)
			h.advanceRetries(1)
			Expect(finish(hd).Status).To(Equal(run.Completed))
			Eventually(t.Done()).Should(BeClosed())
			failed := eventsOf[run.ModelAttemptFailed](t.Events())
			Expect(failed).To(HaveLen(1))
			Expect(failed[0].Message).To(ContainSubstring(want))
			Expect(h.history()[1].Text()).To(Equal("fine"))
		},
		Entry("two tool calls with one id break the grammar",
			runtest.Scripted{Events: twoCallsOneID}, "tool call id missing or reused"),
		Entry("text before Start breaks the grammar",
			runtest.Scripted{Events: []llm.Event{{Kind: llm.EventTextStart}}}, "event before start"),
		Entry("a stream ending without Done is a provider failure",
			runtest.Scripted{Events: runtest.TextEvents("cut")[:3]}, "EOF before Done"),
		Entry("finishing for tool use without a call is a protocol failure",
			runtest.Scripted{Events: []llm.Event{{Kind: llm.EventStart}, {Kind: llm.EventDone, Finish: llm.FinishToolUse}}},
			"finish reason and tool calls disagree"),
		Entry("a disconnect mid-stream is a transient provider failure",
			runtest.Scripted{Events: runtest.TextEvents("cut")[:3], Err: runtest.ErrScriptedDisconnect}, "scripted disconnect"),
	)

	It("fails as a protocol failure once the retries are used up", func() {
		script.Enqueue(runtest.Scripted{Events: twoCallsOneID}, runtest.Scripted{Events: twoCallsOneID})
		hd := h.start(h.prepared(userText("e1", "go")), t)
		h.advanceRetries(1)
		o := finish(hd)
		Expect(o.Status).To(Equal(run.Failed))
		Expect(o.Failure.Category).To(Equal(run.CategoryProtocol))
		Expect(ids(h.history())).To(Equal([]string{"runtime:e1"}))
	})

	It("measures a thinking block on the engine's clock and stores the thinking", func() {
		script.Enqueue(runtest.Scripted{Events: append([]llm.Event{
			{Kind: llm.EventStart}, {Kind: llm.EventThinkingStart}, {Kind: llm.EventThinkingDelta, Text: "hmm"},
			{Kind: llm.EventThinkingEnd},
		}, runtest.TextEvents("answer")[1:]...)})
		Expect(finish(h.start(h.prepared(userText("e1", "go")), t)).Status).To(Equal(run.Completed))
		Eventually(t.Done()).Should(BeClosed())
		Expect(eventsOf[run.ThinkingDelta](t.Events())).To(Equal([]run.ThinkingDelta{{Text: "hmm"}}))
		Expect(eventsOf[run.ThinkingEnd](t.Events())).To(Equal([]run.ThinkingEnd{{Duration: 0}}))
		a, _ := h.history()[1].Assistant()
		Expect(a.Thinking).To(Equal("hmm"))
	})
})
