package modelcycle

import (
	"context"
	"errors"
	"strings"
	"time"

	"keygate/domain/llm"
)

// MaxRetries is the retry policy of a model cycle: up to MaxRetries retries after the first
// attempt, each re-sending the identical request from the same checkpoint,
// with the waits of DefaultBackoff between them.
const MaxRetries = 8

// DefaultBackoff waits about 1, 2, 4, 8 and then 15 s between attempts, 60 s
// in all: enough for a provider's brief overload or a rate limit's window,
// short enough that a user who watches the retries is not left waiting long.
var DefaultBackoff = Backoff{Base: time.Second, Max: 15 * time.Second, Budget: time.Minute}

// Backoff is the wait between the attempts of one model cycle: exponential
// from Base, doubling with each retry up to Max, with jitter so that the
// clients of one overloaded provider do not retry in step, never shorter
// than the provider asked for (Retry-After), and never more than Budget
// over the whole cycle.
type Backoff struct {
	Base, Max time.Duration
	// Budget bounds the sum of the waits of one cycle.
	Budget time.Duration
}

// Delay returns the wait before retry n (1 for the first retry) when spent
// was waited already in this cycle: the backoff step with equal jitter
// (jitter in [0, 1) picks a wait between half the step and the whole
// step), raised to retryAfter when the provider asked for more (0: it did
// not say), and cut to what remains of the budget. It reports false when
// no wait fits: the budget is spent, or the provider asked for more than
// remains of it (an earlier retry would be refused again).
func (b Backoff) Delay(n int, spent, retryAfter time.Duration, jitter float64) (time.Duration, bool) {
	left := b.Budget - spent
	if left <= 0 || retryAfter > left {
		return 0, false
	}
	step := b.Base
	for i := 1; i < n && step < b.Max; i++ {
		step *= 2
	}
	step = min(step, b.Max)
	jitter = min(max(jitter, 0), 1)
	d := step/2 + time.Duration(float64(step/2)*jitter)
	d = max(d, retryAfter)
	return min(d, left), true
}

// Retryable reports whether a failed attempt may be retried:
//
//   - grammar violations and a stream ending before Done: yes;
//   - a Length finish (ErrTruncated), a content filter's block and
//     cancellation: no;
//   - a provider error with a 4xx status other than 408, 425 and 429: no,
//     whatever its class;
//   - other provider errors by class: transient, rate limit and protocol
//     yes; authorization, bad request, context overflow, refusal and
//     content filter no;
//   - anything else (store, client failures): no.
func Retryable(err error) bool {
	switch {
	case err == nil, errors.Is(err, context.Canceled), errors.Is(err, context.DeadlineExceeded),
		errors.Is(err, ErrTruncated), errors.Is(err, ErrContentFiltered):
		return false
	case errors.Is(err, ErrGrammar), errors.Is(err, ErrEOFBeforeDone):
		return true
	}
	var pe *llm.ProviderError
	if !errors.As(err, &pe) {
		return false
	}
	if pe.Status >= 400 && pe.Status < 500 && pe.Status != 408 && pe.Status != 425 && pe.Status != 429 {
		return false
	}
	switch pe.Class {
	case llm.ErrorTransient, llm.ErrorRateLimit, llm.ErrorProtocol:
		return true
	default:
		return false
	}
}

// ShouldRetry reports whether to retry after retries earlier retries
// failed with err: the failure is retryable and fewer than MaxRetries
// retries were made.
func ShouldRetry(err error, retries int) bool { return retries < MaxRetries && Retryable(err) }

var overflowPhrases = []string{
	"prompt is too long",
	"context window exceeded",
	"model_context_window_exceeded",
	"context_length_exceeded",
	"model_max_prompt_tokens_exceeded",
	// Gemini: "The input token count (N) exceeds the maximum number of
	// tokens allowed (M)."
	"exceeds the maximum number of tokens allowed",
}

// IsOverflowMessage reports whether a provider message says the prompt did
// not fit the context window (case-insensitive).
func IsOverflowMessage(msg string) bool {
	m := strings.ToLower(msg)
	for _, p := range overflowPhrases {
		if strings.Contains(m, p) {
			return true
		}
	}
	return strings.Contains(m, "maximum context length") && strings.Contains(m, "token")
}

// IsContextOverflow reports whether err is a provider refusal because the
// prompt did not fit: class ErrorContextOverflow, or a bad-request or
// refusal whose message says so. The engine answers it with one automatic
// compaction per run.
func IsContextOverflow(err error) bool {
	var pe *llm.ProviderError
	if !errors.As(err, &pe) {
		return false
	}
	switch pe.Class {
	case llm.ErrorContextOverflow:
		return true
	case llm.ErrorBadRequest, llm.ErrorRefusal:
		return IsOverflowMessage(pe.Message)
	default:
		return false
	}
}
