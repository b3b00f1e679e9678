package modelcycle_test

import (
	"context"
	"errors"
	"fmt"
	"time"

	. "github.com/onsi/ginkgo/v2"
	. "github.com/onsi/gomega"

	"keygate/domain/llm"
	"keygate/domain/modelcycle"
)

func provider(class llm.ErrorClass, status int, msg string) error {
	return fmt.Errorf("stream: %w", &llm.ProviderError{Class: class, Status: status, Message: msg})
}

var _ = Describe("Retryable", func() {
	DescribeTable("retries only failures a second identical attempt can fix",
		func(err error, want bool) { Expect(modelcycle.Retryable(err)).To(Equal(want)) },
		Entry("a grammar violation is retried", &modelcycle.GrammarError{Event: llm.EventDone}, true),
		Entry("a stream ending before Done is retried", modelcycle.ErrEOFBeforeDone, true),
		Entry("a 5xx is retried", provider(llm.ErrorTransient, 503, "unavailable"), true),
		Entry("a 408 is retried", provider(llm.ErrorTransient, 408, "timeout"), true),
		Entry("a 425 is retried", provider(llm.ErrorTransient, 425, "too early"), true),
		Entry("a 429 is retried", provider(llm.ErrorRateLimit, 429, "slow down"), true),
		Entry("a transport failure is retried", provider(llm.ErrorTransient, 0, "connection reset"), true),
		Entry("an in-band protocol failure is retried", provider(llm.ErrorProtocol, 0, "bad SSE"), true),
		Entry("a wrong key is never retried", provider(llm.ErrorAuthorization, 401, "invalid key"), false),
		Entry("an unknown model is never retried", provider(llm.ErrorBadRequest, 404, "no such model"), false),
		Entry("an oversized body is never retried", provider(llm.ErrorBadRequest, 413, "too large"), false),
		Entry("any other 4xx is never retried, whatever its class", provider(llm.ErrorTransient, 422, "unprocessable"), false),
		Entry("a context overflow is not retried (it compacts instead)", provider(llm.ErrorContextOverflow, 400, "prompt is too long"), false),
		Entry("a provider refusal is never retried", provider(llm.ErrorRefusal, 0, "refused tools"), false),
		Entry("a Length finish is never retried", modelcycle.ErrTruncated, false),
		Entry("a content filter's block of the answer is never retried", &modelcycle.FilteredError{}, false),
		Entry("a content filter's block of the prompt is never retried", provider(llm.ErrorContentFilter, 400, "content_filter"), false),
		Entry("cancellation is never retried", context.Canceled, false),
		Entry("an expired deadline is never retried", context.DeadlineExceeded, false),
		Entry("a store or client failure is never retried", errors.New("store closed"), false),
		Entry("no error is not retried", nil, false),
	)

	DescribeTable("permits_eight_retries_after_the_initial_attempt / terminal_failures_never_retry",
		func(err error, retries int, want bool) { Expect(modelcycle.ShouldRetry(err, retries)).To(Equal(want)) },
		Entry("a retryable failure is retried after the initial attempt", modelcycle.ErrEOFBeforeDone, 0, true),
		Entry("the eighth retry is still permitted", modelcycle.ErrEOFBeforeDone, 7, true),
		Entry("there is no ninth retry", modelcycle.ErrEOFBeforeDone, 8, false),
		Entry("a terminal failure is never retried", modelcycle.ErrTruncated, 0, false),
	)
})

var _ = Describe("IsContextOverflow", func() {
	DescribeTable("provider_refusals_that_mean_the_prompt_did_not_fit_are_recognized",
		func(err error, want bool) { Expect(modelcycle.IsContextOverflow(err)).To(Equal(want)) },
		Entry("the overflow class", provider(llm.ErrorContextOverflow, 400, "whatever"), true),
		Entry("Anthropic's prompt is too long", provider(llm.ErrorBadRequest, 400, "prompt is too long: 210000 tokens > 200000 maximum"), true),
		Entry("OpenAI's context_length_exceeded", provider(llm.ErrorBadRequest, 400, "context_length_exceeded"), true),
		Entry("a context window exceeded message", provider(llm.ErrorBadRequest, 400, "Context window exceeded"), true),
		Entry("model_context_window_exceeded", provider(llm.ErrorRefusal, 0, "model_context_window_exceeded"), true),
		Entry("model_max_prompt_tokens_exceeded", provider(llm.ErrorBadRequest, 400, "model_max_prompt_tokens_exceeded"), true),
		Entry("maximum context length with tokens", provider(llm.ErrorBadRequest, 400, "This model's maximum context length is 128000 tokens"), true),
		Entry("Gemini's input token count over the maximum", provider(llm.ErrorBadRequest, 400, "The input token count (1196265) exceeds the maximum number of tokens allowed (1048576)."), true),
		Entry("maximum context length without tokens is not enough", provider(llm.ErrorBadRequest, 400, "maximum context length reached"), false),
		Entry("a 401 is not an overflow", provider(llm.ErrorAuthorization, 401, "prompt is too long"), false),
		Entry("a 429 is not an overflow", provider(llm.ErrorRateLimit, 429, "rate limited"), false),
		Entry("a prefill error is not an overflow", provider(llm.ErrorBadRequest, 400, "This model does not support assistant message prefill"), false),
		Entry("a non-provider error is not an overflow", errors.New("prompt is too long"), false),
	)
})

var _ = Describe("Backoff", func() {
	b := modelcycle.Backoff{Base: time.Second, Max: 15 * time.Second, Budget: time.Minute}

	DescribeTable("doubles the step from Base up to Max, with equal jitter between half the step and the whole step",
		func(n int, jitter float64, want time.Duration) {
			d, ok := b.Delay(n, 0, 0, jitter)
			Expect(ok).To(BeTrue())
			Expect(d).To(Equal(want))
		},
		Entry("the first retry, least jitter", 1, 0.0, 500*time.Millisecond),
		Entry("the first retry, most jitter", 1, 1.0, time.Second),
		Entry("the second retry", 2, 0.5, 1500*time.Millisecond),
		Entry("the fourth retry", 4, 1.0, 8*time.Second),
		Entry("the fifth retry is capped at Max", 5, 1.0, 15*time.Second),
		Entry("the eighth retry stays at Max", 8, 0.0, 7500*time.Millisecond),
		Entry("a jitter out of range is clamped", 1, 7.0, time.Second),
	)

	It("waits at least what the provider asked for in Retry-After", func() {
		d, ok := b.Delay(1, 0, 20*time.Second, 0.3)
		Expect(ok).To(BeTrue())
		Expect(d).To(Equal(20 * time.Second))
	})

	It("cuts the last wait to what remains of the budget", func() {
		d, ok := b.Delay(5, 55*time.Second, 0, 1)
		Expect(ok).To(BeTrue())
		Expect(d).To(Equal(5 * time.Second))
	})

	It("gives up once the budget is spent", func() {
		_, ok := b.Delay(3, time.Minute, 0, 0)
		Expect(ok).To(BeFalse())
	})

	It("gives up when the provider asks for more than remains: an earlier retry would be refused again", func() {
		_, ok := b.Delay(1, 50*time.Second, 20*time.Second, 0)
		Expect(ok).To(BeFalse())
	})

	It("keeps the default within a minute in all, whatever the jitter", func() {
		spent := time.Duration(0)
		for n := 1; n <= modelcycle.MaxRetries; n++ {
			d, ok := modelcycle.DefaultBackoff.Delay(n, spent, 0, 1)
			if !ok {
				break
			}
			spent += d
		}
		Expect(spent).To(Equal(time.Minute))
	})
})
