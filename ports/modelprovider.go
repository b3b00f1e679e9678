package ports

import (
	"context"
	"errors"

	"keygate/domain/callrecord"
	"keygate/domain/llm"
)

// ErrDestinationRefused means Keygate's outbound policy refused a call's
// destination, or a redirect to another origin, before anything was sent.
// A ModelProvider (and a ModelLister) reports it inside an
// *llm.ProviderError of class ErrorBadRequest whose Message names the
// destination and what an administrator may allow; callers match it with
// errors.Is to show that message instead of advice about the provider. The
// forward proxy answers a tunnel or plain forward it stopped with 403 and
// that message.
var ErrDestinationRefused = errors.New("destination refused by the outbound policy")

// ModelProvider streams model calls to an upstream LLM endpoint.
type ModelProvider interface {
	// Stream makes exactly one HTTP attempt for call; retries belong to the
	// run engine. It returns once response headers arrived with a success
	// status, or with an error. Errors are *llm.ProviderError classified by
	// cause, except a cancelled or expired ctx, which yields ctx.Err() (wrapped).
	//
	// ctx covers the whole call: the wait for headers and every read of the
	// body. Cancelling it closes the connection promptly and makes the stream's
	// Next return false with Err wrapping ctx.Err(). The caller must Close the
	// returned stream.
	Stream(ctx context.Context, call ModelCall) (ModelStream, error)
}

// ModelCall is one provider attempt.
type ModelCall struct {
	// CallID identifies the attempt in call records ("<run>:<index>[:retry-N]").
	CallID string
	// RunID and ConversationID scope the call record; ConversationID also
	// fills the {{SessionId}} template of custom headers.
	RunID          string
	ConversationID string
	// ProviderCallIndex is the model cycle index within the run.
	ProviderCallIndex int
	// Kind is the feature the call serves, stamped on its call record;
	// empty means callrecord.KindAgent.
	Kind callrecord.Kind
	// Client names the program that asked for the call (the compatible
	// API's caller), stamped on its call record; empty for Keygate's own
	// features.
	Client string
	// Endpoint says where and how to call.
	Endpoint Endpoint
	// Request is what to ask.
	Request llm.Request
	// Route says how a router chose this attempt's endpoint; the provider
	// client records it on the call record. Zero for a call made directly.
	Route callrecord.Route
}

// Endpoint is a resolved provider configuration for one call. APIKey is a
// secret: adapters send it only in the protocol's auth header and never log
// or record it.
//
// An Endpoint with Route set is not resolved yet: it names the model or
// alias a router (a ModelProvider wrapped around the provider client)
// resolves per attempt, choosing the target and key; the other fields then
// describe the route's first target for whoever reads them before the call
// (no key among them).
type Endpoint struct {
	// Route names the model or alias to route by; empty for an endpoint
	// resolved already.
	Route string
	Kind  llm.ProviderKind
	// URL is the full request URL (for example https://api.openai.com/v1/responses).
	URL    string
	APIKey string
	// Cloud are the provider's cloud account settings, for a protocol that
	// signs requests or fetches tokens; APIKey then holds the secret
	// material of a CredentialKeys source, empty for an ambient one.
	Cloud CloudSettings
	// Headers are extra request headers; values may contain {{SessionId}}.
	Headers map[string]string
	// ExtraParams is a JSON object merged into the request body; it may not
	// replace a field any Keygate protocol carries the conversation in
	// (model, stream, messages, input, tools, system, instructions,
	// prompt_cache_key for the built-in ones).
	ExtraParams []byte
}

// ModelStream yields the events of one model call. It is not safe for
// concurrent use.
type ModelStream interface {
	// Next advances to the next event and reports whether there is one. It
	// returns false at the end of the stream or on error; Err tells which.
	Next() bool
	// Event returns the current event; valid until the next call to Next.
	Event() llm.Event
	// Err returns the error that ended the stream, nil after a clean Done.
	// Provider failures are *llm.ProviderError.
	Err() error
	// Close releases the connection. It is safe to call more than once and
	// after an error.
	Close() error
}
