package run_test

import (
	"fmt"
	"sync"

	. "github.com/onsi/ginkgo/v2"
	. "github.com/onsi/gomega"

	"keygate/app/run"
	"keygate/app/run/runtest"
	"keygate/domain/llm"
	"keygate/domain/projection"
)

// threeRounds scripts a turn with three tool rounds (one call, two parallel
// calls, one call) and a final answer: four model cycles.
func (h *harness) threeRounds() {
	h.enqueue(
		tools(call("call-1", "Read", `{"path":"1"}`)),
		tools(call("call-2", "Read", `{"path":"2"}`), call("call-3", "Read", `{"path":"3"}`)),
		tools(call("call-4", "Shell", `{"command":"go test"}`)),
		text("all done"),
	)
}

// wantThreeRounds is the provider view of that turn, run without a crash.
var wantThreeRounds = []string{
	"user: go", "assistant: Read", "tool: r-call-1", "assistant: Read,Read", "tool: r-call-2", "tool: r-call-3",
	"assistant: Shell", "tool: r-call-4", "assistant: all done",
}

func answerCalls(hd *run.Handle, ev run.Event) {
	answer(func(c llm.ToolCall) string { return "r-" + c.CallID })(hd, ev)
}

// oneByOne answers the calls of a round one at a time, each after the
// previous result was committed, so every commit point is reached alone.
func oneByOne() func(*run.Handle, run.Event) {
	var pending []llm.ToolCall
	next := func(hd *run.Handle) {
		if len(pending) > 0 {
			c := pending[0]
			pending = pending[1:]
			hd.ToolResult(llm.ToolResult{CallID: c.CallID, Content: "r-" + c.CallID})
		}
	}
	return func(hd *run.Handle, ev run.Event) {
		switch x := ev.(type) {
		case run.ExecuteToolRound:
			pending = append(pending, x.Calls...)
			next(hd)
		case run.MessagesCommitted:
			if x.Cause.Kind == run.CauseToolResult {
				next(hd)
			}
		}
	}
}

// committedAt is how many messages are stored when the commit point with
// that index is announced.
var committedAt = []int{1, 1, 3, 3, 5, 7, 7, 9, 10}

var _ = Describe("Engine crash recovery", func() {
	It("counts the commit points of a turn with three tool rounds", func() {
		h := newHarness(memoryBackend, run.Limits{})
		h.threeRounds()
		t := &runtest.Transport{OnEvent: answerCalls}
		Expect(finish(h.start(h.prepared(userText("e1", "go")), t)).Status).To(Equal(run.Completed))
		Eventually(t.Done()).Should(BeClosed())
		Expect(kindsOf(t.Events())).To(Equal([]string{
			"initial_messages",
			"tool_round_started", "execute", "tool_result",
			"tool_round_started", "execute", "tool_result", "tool_result",
			"tool_round_started", "execute", "tool_result",
			"final_turn", "ended",
		}))
		msgs, err := projection.History(h.history())
		Expect(err).NotTo(HaveOccurred())
		Expect(texts(msgs)).To(Equal(wantThreeRounds))
	})

	for point := range 9 {
		It(fmt.Sprintf("resumes after a crash at commit point %d without losing, duplicating or re-asking anything", point), func() {
			crashAndResume(newHarness(memoryBackend, run.Limits{}), point, true)
		})
	}

	// A client whose stream broke before the checkpoint naming the open
	// round reached it (the replica running the turn died) resumes without
	// naming a run: the run it preempts is the one resumed.
	for point := range 9 {
		It(fmt.Sprintf("resumes after a crash at commit point %d when the resume names no run, from the run it preempts", point), func() {
			crashAndResume(newHarness(memoryBackend, run.Limits{}), point, false)
		})
	}
})

// crashAndResume runs the three-round turn, kills the engine when the
// commit point with index point is announced, then resumes the run on a
// fresh engine over the same store and checks that the resumed turn ends as
// if nothing had happened: nothing lost, nothing stored twice, no completed
// model cycle asked again. named says whether the resume names the run it
// resumes.
func crashAndResume(h *harness, point int, named bool) {
	GinkgoHelper()
	h.threeRounds()
	var (
		once    sync.Once
		crashed = make(chan struct{})
		seen    int
	)
	t := &runtest.Transport{Hold: true}
	answerNext := oneByOne()
	t.OnEvent = func(hd *run.Handle, ev run.Event) {
		select {
		case <-crashed:
			return
		default:
		}
		if c, ok := ev.(run.MessagesCommitted); ok {
			if seen == point {
				once.Do(func() { h.crash(); close(crashed) })
				return
			}
			seen++
			if c.Barrier != nil {
				c.Barrier.Ack()
			}
		}
		answerNext(hd, ev)
	}
	older := h.start(h.prepared(userText("e1", "go")), t)
	Eventually(crashed).Should(BeClosed())
	finish(older)
	Expect(h.history()).To(HaveLen(committedAt[point]), "the crash leaves exactly what was committed")

	h.restart()
	p := h.prepared(userText("e1", "go"))
	p.Action = run.Action{Kind: run.ActionResume}
	if named {
		p.Action.FromRunID = older.RunID()
	}
	resumed := h.start(p, &runtest.Transport{OnEvent: answerCalls})
	Expect(finish(resumed).Status).To(Equal(run.Completed))

	msgs, err := projection.History(h.history())
	Expect(err).NotTo(HaveOccurred())
	Expect(texts(msgs)).To(Equal(wantThreeRounds))
	Expect(h.requestBodies()).To(HaveLen(4), "no completed cycle is asked again")
}
