package modelcycle

import (
	"context"
	"errors"
	"strings"
	"time"

	"keygate/domain/llm"
)

// Retry policy of a model cycle: up to MaxRetries retries after the first
// attempt, RetryDelay apart, each re-sending the identical request from the
// same checkpoint.
const (
	MaxRetries = 8
	RetryDelay = 5 * time.Second
)

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
