package run_test

import (
	"context"
	"fmt"
	"time"

	. "github.com/onsi/ginkgo/v2"
	. "github.com/onsi/gomega"

	"keygate/app/run"
	"keygate/app/run/runtest"
	"keygate/domain/budget"
	"keygate/domain/team"
	"keygate/ports"
)

// refusing is a provider a budget stops before any request is sent.
type refusing struct{ calls int }

func (r *refusing) Stream(context.Context, ports.ModelCall) (ports.ModelStream, error) {
	r.calls++
	return nil, &budget.ExceededError{Limit: budget.LimitTokensPerDay, Used: 120, Max: 100,
		ResetsAt: time.Date(2026, 12, 1, 0, 0, 0, 0, time.UTC)}
}

var _ = Describe("Engine when a budget refuses the model call", func() {
	It("fails the run at once as a limit, with the budget's own message and no retry", func() {
		h := newHarness(memoryBackend, run.Limits{})
		p := &refusing{}
		h.restartWith(p)
		t := &runtest.Transport{}
		o := finish(h.start(h.prepared(userText("e1", "go")), t))
		Expect(o.Status).To(Equal(run.Failed))
		Expect(o.Failure.Category).To(Equal(run.CategoryLimit))
		Expect(o.Failure.Retryable).To(BeFalse())
		Expect(o.Failure.Message).To(HavePrefix("Keygate budget reached: you used 120 of your 100 tokens for today."))
		Expect(p.calls).To(Equal(1), "no retry")
		Expect(h.clock.Waiters()).To(BeZero(), "no retry wait either")
	})
})

// offList is a provider the team allow-lists stop before any request.
type offList struct{ calls int }

func (r *offList) Stream(_ context.Context, call ports.ModelCall) (ports.ModelStream, error) {
	r.calls++
	return nil, fmt.Errorf("check: %w", team.Refusal("opus"))
}

var _ = Describe("Engine when the caller's team does not allow the model", func() {
	It("fails the run at once as a limit, with the refusal's message in the chat and no retry", func() {
		h := newHarness(memoryBackend, run.Limits{})
		p := &offList{}
		h.restartWith(p)
		o := finish(h.start(h.prepared(userText("e1", "go")), &runtest.Transport{}))
		Expect(o.Status).To(Equal(run.Failed))
		Expect(o.Failure.Category).To(Equal(run.CategoryLimit))
		Expect(o.Failure.Retryable).To(BeFalse())
		Expect(o.Failure.Message).To(ContainSubstring(`"opus" is not on your team's model list`))
		Expect(p.calls).To(Equal(1), "no retry")
	})
})
