package llm

import (
	"fmt"
	"time"
)

// ErrorClass is the portable class of a provider failure. Adapters map every
// vendor error to one of these; the engine decides retries from the class.
type ErrorClass uint8

// Provider error classes.
const (
	// ErrorTransient is a 5xx, 408, 425, transport failure or idle stall.
	ErrorTransient ErrorClass = iota + 1
	// ErrorRateLimit is a 429 or an in-band rate-limit or quota error.
	ErrorRateLimit
	// ErrorAuthorization is a 401/403 or an invalid key.
	ErrorAuthorization
	// ErrorBadRequest is any other 4xx: unknown model, malformed body.
	ErrorBadRequest
	// ErrorContextOverflow is a refusal because the prompt did not fit.
	ErrorContextOverflow
	// ErrorRefusal is a provider refusing to act (for example refusing the
	// tool calls it streamed).
	ErrorRefusal
	// ErrorProtocol is a stream that broke the event grammar, malformed SSE,
	// invalid UTF-8 or unparsable JSON.
	ErrorProtocol
	// ErrorContentFilter is a provider's content filter blocking the prompt
	// (an error response) or the answer (a stream that finished with
	// FinishContentFilter, recorded with this class).
	ErrorContentFilter
)

// String returns the class name used in logs and call records.
func (c ErrorClass) String() string {
	switch c {
	case ErrorTransient:
		return "transient"
	case ErrorRateLimit:
		return "rate_limit"
	case ErrorAuthorization:
		return "authorization"
	case ErrorBadRequest:
		return "bad_request"
	case ErrorContextOverflow:
		return "context_overflow"
	case ErrorRefusal:
		return "refusal"
	case ErrorProtocol:
		return "protocol"
	case ErrorContentFilter:
		return "content_filter"
	default:
		return "unknown"
	}
}

// ProviderError is a classified provider failure. Match it with errors.As.
type ProviderError struct {
	Class ErrorClass
	// Status is the HTTP status, 0 for in-band and transport errors.
	Status int
	// RetryAfter is the provider's requested wait, 0 when it gave none.
	RetryAfter time.Duration
	// Message is the provider's message, bounded and free of credentials.
	Message string
	// Err is the underlying cause, if any.
	Err error
}

func (e *ProviderError) Error() string {
	if e.Status != 0 {
		return fmt.Sprintf("provider %s (%d): %s", e.Class, e.Status, e.Message)
	}
	return fmt.Sprintf("provider %s: %s", e.Class, e.Message)
}

func (e *ProviderError) Unwrap() error { return e.Err }
