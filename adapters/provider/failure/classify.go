package failure

import (
	"errors"
	"strconv"
	"strings"
	"unicode/utf8"

	"keygate/adapters/egress"
	"keygate/domain/llm"
	"keygate/domain/modelcycle"
)

// MaxMessage bounds the provider text kept in an error message.
const MaxMessage = 8 << 10

// Status classifies a non-2xx response. label names the protocol ("OpenAI
// Chat"), body is the (already bounded) response body.
func Status(label string, status int, body []byte) *llm.ProviderError {
	msg := Bound(strings.TrimSpace(string(body)))
	class := llm.ErrorBadRequest
	switch {
	case status == 429:
		class = llm.ErrorRateLimit
	case status == 401 || status == 403:
		class = llm.ErrorAuthorization
	case status >= 500, status == 408, status == 425:
		class = llm.ErrorTransient
	case Overflow(msg):
		class = llm.ErrorContextOverflow
	}
	if hits, ok := promptFiltered(body); ok && status == 400 {
		class = llm.ErrorContentFilter
		msg = "the provider's content filter blocked the request"
		if len(hits) > 0 {
			msg += ": " + llm.DescribeFilter(hits)
		}
	}
	return &llm.ProviderError{Class: class, Status: status, Message: label + " " + strconv.Itoa(status) + ": " + msg}
}

// InBand classifies an error event delivered inside a 200 stream. code is
// the vendor's code or type field, whichever it sent.
func InBand(label, code, message string) *llm.ProviderError {
	class := llm.ErrorTransient // unknown errors are retried like transport failures
	switch code {
	case "rate_limit_exceeded", "rate_limit_error", "insufficient_quota", "quota_exceeded":
		class = llm.ErrorRateLimit
	case "server_error", "api_error", "overloaded_error", "internal_server_error":
		class = llm.ErrorTransient
	case "authentication_error", "permission_error", "invalid_api_key":
		class = llm.ErrorAuthorization
	case "invalid_request_error":
		class = llm.ErrorBadRequest
	case "context_length_exceeded", "model_context_window_exceeded", "model_max_prompt_tokens_exceeded":
		class = llm.ErrorContextOverflow
	}
	if class != llm.ErrorContextOverflow && Overflow(message) {
		class = llm.ErrorContextOverflow
	}
	text := label + " error"
	if code != "" {
		text += " " + code
	}
	return &llm.ProviderError{Class: class, Message: text + ": " + Bound(message)}
}

// Overflow reports whether a provider message is a context-overflow refusal;
// the phrases are the engine's (modelcycle), so both sides agree.
func Overflow(message string) bool { return modelcycle.IsOverflowMessage(message) }

// Protocol is a stream that broke the wire format.
func Protocol(label, message string, cause error) *llm.ProviderError {
	return &llm.ProviderError{Class: llm.ErrorProtocol, Message: label + " " + message, Err: cause}
}

// Transient is a transport failure or stall.
func Transient(label, message string, cause error) *llm.ProviderError {
	return &llm.ProviderError{Class: llm.ErrorTransient, Message: label + " " + message, Err: cause}
}

// Bound cuts s to MaxMessage bytes on a rune boundary.
func Bound(s string) string {
	if len(s) <= MaxMessage {
		return s
	}
	cut := MaxMessage
	for cut > 0 && !utf8.RuneStart(s[cut]) {
		cut--
	}
	return s[:cut] + "…"
}

// Refused classifies a request Keygate's outbound policy stopped before it
// left (adapters/egress: a refused destination or a redirect to another
// origin) as a bad request: no retry can help, an administrator must
// change the base URL or the allow-list. Its message is the policy's,
// which names the destination and never a URL or a key. It is nil for any
// other error.
func Refused(label string, err error) *llm.ProviderError {
	var refused *egress.RefusedError
	var redirect *egress.RedirectError
	switch {
	case errors.As(err, &refused):
		return &llm.ProviderError{Class: llm.ErrorBadRequest, Message: label + ": " + refused.Error(), Err: refused}
	case errors.As(err, &redirect):
		return &llm.ProviderError{Class: llm.ErrorBadRequest, Message: label + ": " + redirect.Error(), Err: redirect}
	}
	return nil
}
