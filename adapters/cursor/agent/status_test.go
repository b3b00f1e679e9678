package agent_test

import (
	"context"
	"time"

	. "github.com/onsi/ginkgo/v2"
	. "github.com/onsi/gomega"
	"go.uber.org/zap"

	"keygate/adapters/cursor"
	"keygate/adapters/cursor/agent"
	"keygate/adapters/cursor/cursortest"
	"keygate/adapters/provider"
	"keygate/adapters/provider/providertest"
	"keygate/app/run"
	"keygate/app/run/runtest"
)

// retryingStack serves the run layer on an engine that retries, on a fake
// clock, with the most jitter (each wait is its whole backoff step: 1 s,
// 2 s, 4 s…), over the harness's stores and provider.
func retryingStack(h *harness, clock *runtest.Clock, limits run.Limits) *cursortest.Env {
	e, err := run.New(run.Options{
		Conversations: h.stores.Conversations, Runs: h.stores.Runs, ToolRounds: h.stores.ToolRounds, Blobs: h.stores.Blobs,
		Provider: provider.New(provider.Options{Recorder: h.stores.Calls}),
		Clock:    clock, Jitter: func() float64 { return 1 }, Limits: limits, Logger: zap.NewNop(),
	})
	Expect(err).NotTo(HaveOccurred())
	DeferCleanup(func() {
		ctx, cancel := context.WithTimeout(context.Background(), 5*time.Second)
		defer cancel()
		_ = e.Shutdown(ctx)
	})
	handler, err := agent.New(agent.Options{Engine: e, Conversations: h.stores.Conversations, Runs: h.stores.Runs, Blobs: h.stores.Blobs,
		Models: models{url: h.provider.URL, kind: h.kind}, Logger: zap.NewNop()})
	Expect(err).NotTo(HaveOccurred())
	env := cursortest.Serve(handler, cursor.Options{Transport: cursortest.FastTimings()})
	DeferCleanup(env.Close)
	return env
}

// thinkingText is the text of the stream's thinking blocks so far.
func thinkingText(st *cursortest.Stream) func() string {
	return func() string {
		var s string
		for _, b := range cursortest.Thinking(st.Messages()) {
			s += b.Text
		}
		return s
	}
}

var _ = Describe("Handler showing the user that Keygate retries a failing provider", func() {
	const overloaded = `{"error":{"message":"overloaded","type":"server_error"}}`
	var (
		h     *harness
		clock *runtest.Clock
	)
	BeforeEach(func() {
		h = newHarness(mainKind)
		clock = runtest.NewClock()
	})

	// advance lets wait pass on the engine's clock once a retry waits on it:
	// on the timer due wait from now, not on a count of timers, which another
	// of the engine's timers can satisfy before the retry's is set (seen under
	// load with the race detector: the clock moved past a timer set later,
	// which then never fired).
	advance := func(wait time.Duration) {
		GinkgoHelper()
		Eventually(func() bool { return clock.WaitingFor(wait) }).Should(BeTrue(), "the engine waits %s to retry", wait)
		clock.Advance(wait)
	}

	It("puts each failure on the wire as it happens, in a thinking block the client shows, then the answer", func() {
		env := retryingStack(h, clock, run.Limits{})
		h.provider.Enqueue(providertest.Status(503, overloaded), providertest.Status(503, overloaded))
		h.reply(providertest.Turn{ID: "r1", Text: []string{"It works."}})
		st := open(env.Client("req-retry"), cursortest.RunRequest("conv-retry", "kg-model", "Hi"))

		By("showing the first failure before any time passed on the engine's clock")
		first := "Attempt 1 of up to 9 failed: the provider answered 503: overloaded. Trying again in 1 s.\n"
		Eventually(thinkingText(st)).Should(Equal(first))
		Expect(clock.Now()).To(Equal(runtest.NewClock().Now()), "the status is sent at once, not after the wait")
		Expect(st.Texts()).To(BeEmpty())

		By("showing the next attempt once the 1 s wait passed, and its failure")
		advance(time.Second)
		second := first + "Attempt 2 of up to 9: sending the request again.\n" +
			"Attempt 2 of up to 9 failed: the provider answered 503: overloaded. Trying again in 2 s.\n"
		Eventually(thinkingText(st)).Should(Equal(second))

		By("closing the block when the third attempt answers, 3 s after the first status")
		advance(2 * time.Second)
		finished(st)
		Expect(st.EndError()).To(BeNil())
		Expect(cursortest.Thinking(st.Messages())).To(Equal([]cursortest.ThinkingBlock{{
			Text:   second + "Attempt 3 of up to 9: sending the request again.\n",
			Closed: true, Duration: 3 * time.Second, Before: 0,
		}}), "one closed block, before any text of the answer")
		Expect(st.Texts()).To(Equal([]string{"It works."}))
		Expect(h.provider.Requests()).To(HaveLen(3))
	})

	It("keeps the statuses out of the conversation the client stores", func() {
		env := retryingStack(h, clock, run.Limits{})
		h.provider.Enqueue(providertest.Status(503, overloaded))
		h.reply(providertest.Turn{ID: "r1", Text: []string{"It works."}})
		st := open(env.Client("req-retry-kept"), cursortest.RunRequest("conv-retry-kept", "kg-model", "Hi"))
		Eventually(thinkingText(st)).ShouldNot(BeEmpty())
		advance(time.Second)
		finished(st)
		for _, m := range lastCheckpoint(st).GetRootPromptMessagesJson() {
			Expect(string(m)).NotTo(ContainSubstring("Attempt 1"))
		}
	})

	It("ends with an error bubble saying how long and how often Keygate tried", func() {
		env := retryingStack(h, clock, run.Limits{RetryBudget: 3 * time.Second})
		for range 4 {
			h.provider.Enqueue(providertest.Status(503, overloaded))
		}
		st := open(env.Client("req-retry-fail"), cursortest.RunRequest("conv-retry-fail", "kg-model", "Hi"))
		advance(time.Second)
		advance(2 * time.Second)
		finished(st)
		want := "The model provider failed (OpenAI Chat 503: overloaded). Keygate tried 3 times over 3 s. Try again."
		Expect(st.EndError().Message()).To(Equal(want))
		Expect(bubble(st).GetDetails().GetDetail()).To(Equal(want))
		Expect(bubble(st).GetDetails().GetIsRetryable()).To(BeTrue())
		blocks := cursortest.Thinking(st.Messages())
		Expect(blocks).To(HaveLen(1))
		Expect(blocks[0].Closed).To(BeTrue(), "the status block is closed before the bubble")
	})
})
