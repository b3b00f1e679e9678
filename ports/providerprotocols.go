package ports

import (
	"errors"

	"keygate/domain/llm"
)

// ErrFillInModel means a model of a fill-in-the-middle protocol
// (ProviderProtocol.FillIn) was named where a conversation is needed: it
// can serve Cursor Tab, never an Agent turn. Match it with errors.Is.
var ErrFillInModel = errors.New("fill-in-the-middle model cannot hold a conversation")

// ProviderProtocols is the set of provider wire protocols Keygate speaks.
// The application asks it which kinds exist and where a model's requests
// go, so that no use case names a protocol. Implementations are immutable
// and safe for concurrent use.
type ProviderProtocols interface {
	// Protocols lists every protocol once, in the order they are offered to
	// people; the first is the default of a new model. The list is the same
	// on every call.
	Protocols() []ProviderProtocol
	// RequestURL derives the request URL of a model from its configured
	// base URL and upstream model id: base verbatim when full is set, else
	// the protocol's rule (typically base plus a standard path). It fails
	// for a base that is not an http(s) URL with a host and no fragment,
	// and for a kind Protocols does not list. Error texts name no secret
	// of the base (userinfo, key-like query values).
	RequestURL(kind llm.ProviderKind, base, model string, full bool) (string, error)
}

// ProviderProtocol describes one protocol for people choosing it.
type ProviderProtocol struct {
	// Kind is the stored name (llm.ProviderOpenAIChat, ...).
	Kind llm.ProviderKind
	// Name is the short label ("OpenAI Chat"), used in lists and messages.
	Name string
	// Title is the label of the choice ("OpenAI Chat Completions (and
	// compatible)").
	Title string
	// FillIn says the protocol completes the text between a prefix and a
	// suffix (llm.Request.FillIn) instead of holding a conversation: such a
	// model can serve Cursor Tab, never the Agent.
	FillIn bool
	// Cloud, for a protocol that signs requests or fetches tokens, is what
	// its providers are configured with; nil for the others.
	Cloud *ProviderCloud
}

// ProviderCloud is what a cloud protocol's providers are configured with.
type ProviderCloud struct {
	// Fields name the CloudSettings shown, in order: "region", "project",
	// "profile", "role_arn", "web_identity_token_file".
	Fields []string
	// Sources are the credential sources offered, the first the default.
	Sources []CredentialSource
	// KeyFormat says what a pool key holds for CredentialKeys.
	KeyFormat string
	// BaseURL is the vendor's endpoint for the settings.
	BaseURL func(CloudSettings) string
	// Check refuses settings the protocol cannot work with; nil accepts
	// all.
	Check func(CloudSettings) error
}
