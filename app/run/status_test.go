package run_test

import (
	"time"

	. "github.com/onsi/ginkgo/v2"
	. "github.com/onsi/gomega"

	"keygate/adapters/provider/providertest"
	"keygate/app/run"
	"keygate/app/run/runtest"
)

const overloaded = `{"error":{"message":"overloaded","type":"server_error"}}`

// statusView is a status as a spec compares it: its kind, attempt, the
// wait it announces and when it came, on the fake clock.
type statusView struct {
	Kind    run.StatusKind
	Attempt int
	Wait    time.Duration
	Elapsed time.Duration
}

func statusViews(evs []run.Event) []statusView {
	var out []statusView
	for _, s := range eventsOf[run.ModelStatus](evs) {
		out = append(out, statusView{s.Kind, s.Attempt, s.Wait, s.Elapsed})
	}
	return out
}

// statusLines are the sentences of the statuses among evs.
func statusLines(evs []run.Event) []string {
	var out []string
	for _, s := range eventsOf[run.ModelStatus](evs) {
		out = append(out, s.Line)
	}
	return out
}

// indexOf is the position of the first event of type T in evs, -1 if none.
func indexOf[T run.Event](evs []run.Event) int {
	for i, ev := range evs {
		if _, ok := ev.(T); ok {
			return i
		}
	}
	return -1
}

var _ = Describe("Engine status while a model cycle is retried", func() {
	var (
		h *harness
		t *runtest.Transport
	)
	BeforeEach(func() {
		h = newHarness(memoryBackend, run.Limits{})
		t = &runtest.Transport{}
	})

	When("the provider fails three times and then answers", func() {
		var o run.Outcome
		BeforeEach(func() {
			for range 3 {
				h.server.Enqueue(providertest.Status(503, overloaded))
			}
			h.enqueue(text("done"))
			hd := h.start(h.prepared(userText("e1", "go")), t)

			By("telling the user at once, before any time passed on the engine's clock")
			Eventually(func() []string { return statusLines(t.Events()) }).Should(Equal([]string{
				"Attempt 1 of up to 9 failed: the provider answered 503: overloaded. Trying again in 1 s.",
			}))
			Expect(h.clock.Now()).To(Equal(runtest.NewClock().Now()), "no time has passed")

			h.advanceRetries(3)
			o = finish(hd)
			Eventually(t.Done()).Should(BeClosed())
		})

		It("completes with the answer of the fourth attempt", func() {
			Expect(o.Status).To(Equal(run.Completed))
			Expect(h.requestBodies()).To(HaveLen(4))
			Expect(t.Text()).To(Equal("done"))
		})

		It("announces each failure and each new attempt, backing off 1, 2 and 4 s", func() {
			Expect(statusViews(t.Events())).To(Equal([]statusView{
				{run.StatusRetryScheduled, 1, time.Second, 0},
				{run.StatusRetrying, 2, 0, time.Second},
				{run.StatusRetryScheduled, 2, 2 * time.Second, time.Second},
				{run.StatusRetrying, 3, 0, 3 * time.Second},
				{run.StatusRetryScheduled, 3, 4 * time.Second, 3 * time.Second},
				{run.StatusRetrying, 4, 0, 7 * time.Second},
			}))
			Expect(statusLines(t.Events())).To(Equal([]string{
				"Attempt 1 of up to 9 failed: the provider answered 503: overloaded. Trying again in 1 s.",
				"Attempt 2 of up to 9: sending the request again.",
				"Attempt 2 of up to 9 failed: the provider answered 503: overloaded. Trying again in 2 s.",
				"Attempt 3 of up to 9: sending the request again.",
				"Attempt 3 of up to 9 failed: the provider answered 503: overloaded. Trying again in 4 s.",
				"Attempt 4 of up to 9: sending the request again.",
			}))
		})

		It("closes the statuses once, before the answer's first text, saying how long they were shown", func() {
			evs := t.Events()
			Expect(eventsOf[run.ModelStatusEnd](evs)).To(Equal([]run.ModelStatusEnd{{Duration: 7 * time.Second}}))
			Expect(indexOf[run.ModelStatusEnd](evs)).To(BeNumerically("<", indexOf[run.TextDelta](evs)))
		})
	})

	It("tells the user every five seconds while a long retry wait goes on, honouring the provider's Retry-After", func() {
		h.server.Enqueue(providertest.RateLimited(12 * time.Second))
		h.enqueue(text("done"))
		hd := h.start(h.prepared(userText("e1", "go")), t)
		Eventually(func() []statusView { return statusViews(t.Events()) }).Should(HaveLen(1))
		Expect(statusViews(t.Events())[0].Wait).To(Equal(12*time.Second), "the provider asked for 12 s, more than the 1 s backoff")

		for range 2 {
			Eventually(h.clock.Waiters).Should(Equal(1))
			n := len(statusViews(t.Events()))
			h.clock.Advance(5 * time.Second)
			Eventually(func() []statusView { return statusViews(t.Events()) }).Should(HaveLen(n + 1))
		}
		Eventually(h.clock.Waiters).Should(Equal(1))
		h.clock.Advance(2 * time.Second)
		Expect(finish(hd).Status).To(Equal(run.Completed))
		Eventually(t.Done()).Should(BeClosed())

		Expect(statusViews(t.Events())).To(Equal([]statusView{
			{run.StatusRetryScheduled, 1, 12 * time.Second, 0},
			{run.StatusStillWaiting, 2, 7 * time.Second, 5 * time.Second},
			{run.StatusStillWaiting, 2, 2 * time.Second, 10 * time.Second},
			{run.StatusRetrying, 2, 0, 12 * time.Second},
		}))
		lines := statusLines(t.Events())
		Expect(lines[0]).To(HavePrefix("Attempt 1 of up to 9 failed: the provider answered 429: "))
		Expect(lines[0]).To(HaveSuffix(". Trying again in 12 s."))
		Expect(lines[1:3]).To(Equal([]string{"Trying again in 7 s (attempt 2 of up to 9).", "Trying again in 2 s (attempt 2 of up to 9)."}))
	})

	It("tells the user every five seconds while the retried attempt has not answered yet", func() {
		h.server.Enqueue(providertest.Status(503, overloaded))
		h.server.Enqueue(providertest.Reply{Steps: append([]providertest.Step{{Stall: true}},
			providertest.Events(providertest.ChatSSE(text("done")))...)})
		hd := h.start(h.prepared(userText("e1", "go")), t)
		h.advanceRetries(1)
		Eventually(func() []statusView { return statusViews(t.Events()) }).Should(HaveLen(2), "the second attempt started")
		for i := range 2 {
			Eventually(h.clock.Waiters).Should(Equal(1), "the attempt's status timer")
			h.clock.Advance(5 * time.Second)
			Eventually(func() []statusView { return statusViews(t.Events()) }).Should(HaveLen(3 + i))
		}
		h.server.Release()
		Expect(finish(hd).Status).To(Equal(run.Completed))
		Eventually(t.Done()).Should(BeClosed())

		Expect(statusViews(t.Events())[2:]).To(Equal([]statusView{
			{run.StatusStillWaiting, 2, 0, 6 * time.Second},
			{run.StatusStillWaiting, 2, 0, 11 * time.Second},
		}))
		Expect(statusLines(t.Events())[2:]).To(Equal([]string{
			"Attempt 2 of up to 9: no answer yet after 5 s.",
			"Attempt 2 of up to 9: no answer yet after 10 s.",
		}))
		Expect(eventsOf[run.ModelStatusEnd](t.Events())).To(Equal([]run.ModelStatusEnd{{Duration: 11 * time.Second}}))
		Expect(h.clock.Waiters()).To(BeZero(), "the status timer is released")
	})

	It("stops once the retry budget is spent, and the error says how long and how often Keygate tried", func() {
		for range 9 {
			h.server.Enqueue(providertest.Status(503, overloaded))
		}
		hd := h.start(h.prepared(userText("e1", "go")), t)
		h.advanceRetries(7)
		o := finish(hd)
		Eventually(t.Done()).Should(BeClosed())
		Expect(o.Status).To(Equal(run.Failed))
		Expect(h.requestBodies()).To(HaveLen(8), "1+2+4+8+15+15+15 s of waits spend the 60 s budget")
		Expect(o.Failure.Message).To(Equal("The model provider failed (OpenAI Chat 503: overloaded). Keygate tried 8 times over 1 min. Try again."))
		evs := t.Events()
		Expect(eventsOf[run.ModelStatusEnd](evs)).To(HaveLen(1))
		Expect(indexOf[run.ModelStatusEnd](evs)).To(BeNumerically("<", indexOf[run.Ended](evs)), "the statuses close before the end")
	})

	It("does not retry when the provider asks to wait longer than the budget, and says so", func() {
		h.server.Enqueue(providertest.RateLimited(2 * time.Minute))
		o := finish(h.start(h.prepared(userText("e1", "go")), t))
		Eventually(t.Done()).Should(BeClosed())
		Expect(o.Status).To(Equal(run.Failed))
		Expect(h.requestBodies()).To(HaveLen(1))
		Expect(o.Failure.Message).To(HaveSuffix(
			" The provider asked to wait 2 min before trying again, longer than Keygate waits for a retry (1 min in all). Wait a moment and try again."))
		Expect(eventsOf[run.ModelStatus](t.Events())).To(BeEmpty())
		Expect(h.clock.Waiters()).To(BeZero())
	})

	It("shows no status for a failure no retry can help", func() {
		h.server.Enqueue(providertest.Status(401, `{"error":{"message":"bad key","type":"invalid_request_error"}}`))
		o := finish(h.start(h.prepared(userText("e1", "go")), t))
		Eventually(t.Done()).Should(BeClosed())
		Expect(o.Failure.Message).NotTo(ContainSubstring("Keygate tried"))
		Expect(eventsOf[run.ModelStatus](t.Events())).To(BeEmpty())
		Expect(eventsOf[run.ModelStatusEnd](t.Events())).To(BeEmpty())
	})

	It("closes the statuses when the run is cancelled during a retry wait", func() {
		h.server.Enqueue(providertest.Status(503, overloaded))
		hd := h.start(h.prepared(userText("e1", "go")), t)
		Eventually(func() []statusView { return statusViews(t.Events()) }).Should(HaveLen(1))
		Eventually(h.clock.Waiters).Should(Equal(1))
		hd.Cancel("stop")
		Expect(finish(hd).Status).To(Equal(run.Cancelled))
		Eventually(t.Done()).Should(BeClosed())
		Expect(eventsOf[run.ModelStatusEnd](t.Events())).To(HaveLen(1))
	})

	It("runs without retries when the retry budget is negative", func() {
		h.limits = run.Limits{RetryBudget: -1}
		h.restart()
		h.server.Enqueue(providertest.Status(503, overloaded))
		o := finish(h.start(h.prepared(userText("e1", "go")), t))
		Expect(o.Status).To(Equal(run.Failed))
		Expect(h.requestBodies()).To(HaveLen(1))
		Expect(o.Failure.Message).To(Equal("The model provider failed (OpenAI Chat 503: overloaded). Try again."))
	})
})
