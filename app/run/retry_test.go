package run_test

import (
	"bytes"
	"time"

	. "github.com/onsi/ginkgo/v2"
	. "github.com/onsi/gomega"

	"keygate/adapters/provider/providertest"
	"keygate/app/run"
	"keygate/app/run/runtest"
	"keygate/domain/conversation"
	"keygate/domain/modelcycle"
)

// advanceRetries lets the latest run's next n retry waits pass on the fake
// clock: each once the engine announced it (StatusRetryScheduled) and waits
// on its timer, by the wait it announced.
func (h *harness) advanceRetries(n int) {
	GinkgoHelper()
	h.mu.Lock()
	t, from := h.last, h.waited
	h.waited += n
	h.mu.Unlock()
	for i := from; i < from+n; i++ {
		Eventually(func() int { return len(scheduled(t.Events())) }).Should(BeNumerically(">", i), "retry %d is announced", i+1)
		Eventually(h.clock.Waiters).Should(Equal(1))
		h.clock.Advance(scheduled(t.Events())[i].Wait)
	}
}

// scheduled are the StatusRetryScheduled statuses among evs.
func scheduled(evs []run.Event) []run.ModelStatus {
	var out []run.ModelStatus
	for _, s := range eventsOf[run.ModelStatus](evs) {
		if s.Kind == run.StatusRetryScheduled {
			out = append(out, s)
		}
	}
	return out
}

const serverError = `{"error":{"message":"upstream exploded","type":"server_error"}}`

var _ = Describe("Engine model cycle retries", func() {
	var h *harness
	BeforeEach(func() { h = newHarness(memoryBackend, run.Limits{}) })

	When("an attempt streams partial output and then disconnects", func() {
		var (
			t  *runtest.Transport
			hd *run.Handle
		)
		BeforeEach(func() {
			steps := providertest.Events(providertest.ChatSSE(providertest.Turn{
				Text: []string{"partial "}, Calls: []providertest.Call{call("call-1", "Read", `{"pa`)}}))
			h.server.Enqueue(providertest.Reply{Steps: append(steps[:3:3], providertest.Step{Disconnect: true})})
			h.enqueue(text("completed"))
			t = &runtest.Transport{}
			hd = h.start(h.prepared(userText("e1", "go")), t)
			h.advanceRetries(1)
			Expect(finish(hd).Status).To(Equal(run.Completed))
			Eventually(t.Done()).Should(BeClosed())
		})

		It("retries from the same checkpoint with the identical request", func() {
			bodies := h.requestBodies()
			Expect(bodies).To(HaveLen(2))
			Expect(bytes.Equal(bodies[0], bodies[1])).To(BeTrue())
		})

		It("shows the partial output but stores only the retried answer", func() {
			Expect(t.Text()).To(Equal("partial completed"))
			Expect(ids(h.history())).To(Equal([]string{"runtime:e1", conversation.AssistantID(hd.RunID(), 0)}))
			Expect(h.history()[1].Text()).To(Equal("completed"))
		})

		It("closes the partial tool card and reports the failed attempt", func() {
			failed := eventsOf[run.ToolCallFailed](t.Events())
			Expect(failed).To(ConsistOf(run.ToolCallFailed{Index: 0, CallID: "call-1"}))
			attempts := eventsOf[run.ModelAttemptFailed](t.Events())
			Expect(attempts).To(HaveLen(1))
			Expect(attempts[0].Retrying).To(BeTrue())
		})

		It("records each attempt under its own call id", func() {
			first, ok := h.b.record(conversation.ProviderCallID(hd.RunID(), 0, 0))
			Expect(ok).To(BeTrue())
			Expect(first.Status.String()).To(Equal("error"))
			second, ok := h.b.record(conversation.ProviderCallID(hd.RunID(), 0, 1))
			Expect(ok).To(BeTrue())
			Expect(second.Status.String()).To(Equal("completed"))
		})
	})

	When("the model stops because of its output limit", func() {
		var (
			t *runtest.Transport
			o run.Outcome
		)
		BeforeEach(func() {
			h.enqueue(providertest.Turn{Text: []string{"cut sh"}, Finish: "length"})
			t = &runtest.Transport{}
			o = finish(h.start(h.prepared(userText("e1", "go")), t))
			Eventually(t.Done()).Should(BeClosed())
		})

		It("fails with a retryable provider failure without retrying", func() {
			Expect(o.Status).To(Equal(run.Failed))
			Expect(o.Failure.Category).To(Equal(run.CategoryProvider))
			Expect(o.Failure.Retryable).To(BeTrue())
			Expect(o.Failure.Message).To(ContainSubstring("model stopped before completing the response"))
			Expect(h.requestBodies()).To(HaveLen(1))
		})

		It("keeps only the initial checkpoint and commits no final turn", func() {
			Expect(ids(h.history())).To(Equal([]string{"runtime:e1"}))
			for _, c := range eventsOf[run.MessagesCommitted](t.Events()) {
				Expect(c.Cause.Kind).NotTo(Equal(run.CauseFinalTurn))
			}
		})
	})

	When("the provider's content filter blocks the answer", func() {
		var (
			t *runtest.Transport
			o run.Outcome
		)
		BeforeEach(func() {
			h.server.Enqueue(providertest.Stream([]byte(
				`data: {"id":"","model":"","choices":[],"prompt_filter_results":[{"prompt_index":0,"content_filter_results":{"hate":{"filtered":false,"severity":"safe"}}}]}` + "\n\n" +
					`data: {"id":"chatcmpl-1","model":"gpt-4o","choices":[{"index":0,"delta":{"content":"Here is how to"}}]}` + "\n\n" +
					`data: {"id":"","model":"","choices":[{"index":0,"finish_reason":"content_filter","content_filter_results":{"violence":{"filtered":true,"severity":"high"}}}]}` + "\n\n" +
					"data: [DONE]\n\n")))
			t = &runtest.Transport{}
			o = finish(h.start(h.prepared(userText("e1", "go")), t))
			Eventually(t.Done()).Should(BeClosed())
		})

		It("fails the run saying the filter blocked the answer and naming its category, without retrying", func() {
			Expect(o.Status).To(Equal(run.Failed))
			Expect(o.Failure.Category).To(Equal(run.CategoryProvider))
			Expect(o.Failure.Retryable).To(BeFalse(), "the same request is blocked again")
			Expect(o.Failure.Message).To(HavePrefix("The model provider's content filter blocked the answer (violence (high))."))
			Expect(modelcycle.IsContentFiltered(o.Failure)).To(BeTrue())
			Expect(h.requestBodies()).To(HaveLen(1))
		})

		It("stores no answer: the cut-off text is no finished turn", func() {
			Expect(ids(h.history())).To(Equal([]string{"runtime:e1"}))
		})
	})

	DescribeTable("tells the user in a sentence what failed and what helps, never a raw provider body",
		func(reply providertest.Reply, want string) {
			h.server.Enqueue(reply)
			o := finish(h.start(h.prepared(userText("e1", "go")), &runtest.Transport{}))
			Expect(o.Status).To(Equal(run.Failed))
			Expect(o.Failure.Message).To(Equal(want))
		},
		Entry("a refused key", providertest.Status(401, `{"error":{"message":"Incorrect API key provided: sk-test","type":"invalid_request_error"}}`),
			"The model provider refused this model's API key (OpenAI Chat 401: Incorrect API key provided: redacted). Ask your administrator to check the key."),
		Entry("an unknown model", providertest.Status(404, `{"error":{"message":"The model does not exist","type":"invalid_request_error"}}`),
			"The model provider rejected the request (OpenAI Chat 404: The model does not exist). Check the model's configuration."),
		Entry("a prompt the content filter refused", providertest.Status(400,
			`{"error":{"code":"content_filter","message":"filtered","innererror":{"content_filter_result":{"jailbreak":{"filtered":true,"detected":true}}}}}`),
			"The model provider's content filter blocked the request. Rephrase the request, or ask your administrator about the provider's filter settings."),
	)

	It("permits eight retries after the first attempt by default", func() {
		h.limits = run.Limits{RetryBudget: time.Hour}
		h.restart()
		for range 9 {
			h.server.Enqueue(providertest.Status(503, serverError))
		}
		hd := h.start(h.prepared(userText("e1", "go")), &runtest.Transport{})
		h.advanceRetries(8)
		o := finish(hd)
		Expect(o.Status).To(Equal(run.Failed))
		Expect(h.requestBodies()).To(HaveLen(9))
	})

	DescribeTable("how often a failing provider is called, with two retries configured",
		func(reply func() providertest.Reply, attempts int) {
			h.limits = run.Limits{MaxRetries: 2, RetryBase: time.Second}
			h.restart()
			for range 3 {
				h.server.Enqueue(reply())
			}
			hd := h.start(h.prepared(userText("e1", "go")), &runtest.Transport{})
			h.advanceRetries(attempts - 1)
			o := finish(hd)
			Expect(o.Status).To(Equal(run.Failed))
			Expect(o.Failure.Category).To(Equal(run.CategoryProvider))
			Expect(h.requestBodies()).To(HaveLen(attempts))
		},
		Entry("a 500 is retried until the limit", func() providertest.Reply { return providertest.Status(500, serverError) }, 3),
		Entry("a 429 is retried until the limit", func() providertest.Reply { return providertest.RateLimited(time.Second) }, 3),
		Entry("a 401 is never retried", func() providertest.Reply {
			return providertest.Status(401, `{"error":{"message":"bad key","type":"invalid_request_error"}}`)
		}, 1),
		Entry("a 404 is never retried", func() providertest.Reply {
			return providertest.Status(404, `{"error":{"message":"no such model","type":"invalid_request_error"}}`)
		}, 1),
	)
})
