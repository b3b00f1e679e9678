package llm

// ProviderKind names a provider wire protocol; it is stored with model
// configurations, call records and replay state. Replay state produced by
// one kind is only ever sent back to an adapter of the same kind. Which
// kinds exist is decided by the protocols the provider adapter registers,
// not here: a new protocol names its kind in its own package.
type ProviderKind string

// The kinds of the built-in protocols, which stored data and specs refer to.
const (
	ProviderOpenAIChat      ProviderKind = "openai_chat"
	ProviderOpenAIResponses ProviderKind = "openai_responses"
	ProviderAnthropic       ProviderKind = "anthropic"
	// ProviderOpenAICompletions is OpenAI's legacy completions endpoint
	// with a suffix, a fill-in-the-middle protocol.
	ProviderOpenAICompletions ProviderKind = "openai_completions"
	// ProviderMistralFIM is Mistral's fill-in-the-middle endpoint (Codestral).
	ProviderMistralFIM ProviderKind = "mistral_fim"
	// ProviderGemini is Google's Gemini API (generateContent).
	ProviderGemini ProviderKind = "gemini"
	// ProviderBedrockConverse is AWS Bedrock's Converse API.
	ProviderBedrockConverse ProviderKind = "bedrock_converse"
	// ProviderBedrockAnthropic is Anthropic's Messages body on AWS Bedrock.
	ProviderBedrockAnthropic ProviderKind = "bedrock_anthropic"
	// ProviderVertexAnthropic is Anthropic's models on Google Vertex AI
	// (streamRawPredict).
	ProviderVertexAnthropic ProviderKind = "vertex_anthropic"
	// ProviderVertexGemini is Gemini on Google Vertex AI
	// (streamGenerateContent).
	ProviderVertexGemini ProviderKind = "vertex_gemini"
)

// Role is the speaker of a projected message.
type Role uint8

// Roles of provider-visible messages.
const (
	RoleSystem Role = iota + 1
	RoleUser
	RoleAssistant
	RoleTool
)

// String returns the lower-case role name.
func (r Role) String() string {
	switch r {
	case RoleSystem:
		return "system"
	case RoleUser:
		return "user"
	case RoleAssistant:
		return "assistant"
	case RoleTool:
		return "tool"
	default:
		return "unknown"
	}
}

// Request is one provider-independent model request: a pure function of a
// checkpoint plus the prompt and model settings. Serialising the same Request
// twice must give identical bytes, which is what keeps provider prompt caches
// warm.
type Request struct {
	// Model is the upstream model id (for example "gpt-5.1" or "claude-sonnet-4-5").
	Model string
	// Instructions is the system prompt of the mode; empty means none.
	Instructions string
	// Tools are offered in this order; the order is part of the cache prefix.
	Tools []Tool
	// SharedTools is how many leading Tools stay the same when the
	// conversation switches modes: a protocol that caches only at explicit
	// breakpoints (Anthropic) marks their end, so a switch reuses them.
	// 0 marks nothing.
	SharedTools int
	// PromptName names the prompt (the mode) the request was made with, for
	// diagnostics such as naming a mode switch as a cache break; it is
	// never sent to a provider.
	PromptName string
	// Messages is the projected history, oldest first. It never contains
	// request ids, timestamps or other per-call values.
	Messages []Message
	// MaxOutputTokens caps the answer; 0 lets the adapter choose its default.
	MaxOutputTokens int
	// Reasoning controls thinking or reasoning output.
	Reasoning Reasoning
	// CacheKey scopes provider prompt caching (OpenAI prompt_cache_key); it is
	// derived from the conversation, never from the run.
	CacheKey string
	// ServiceTier asks for a processing tier: ServiceTierFast is the
	// provider's faster, pricier processing (OpenAI's priority tier,
	// Anthropic's fast mode), which each adapter writes its own way; any
	// other value is passed through where the protocol has a tier field.
	ServiceTier string
	// FillIn, when set, makes the request a fill-in-the-middle completion:
	// the model writes the text between FillIn.Prefix and FillIn.Suffix.
	// Only a protocol that declares itself a fill-in protocol accepts it,
	// and such a protocol accepts nothing else (Messages, Tools and
	// Instructions are then empty).
	FillIn *FillIn
	// Native, when set, is the caller's own body of a request that arrived
	// in a provider protocol's wire format (the compatible API). A protocol
	// of Native.Kind sends it in place of the body it would write from the
	// fields above, replacing only the model and how it is streamed, so a
	// same-protocol call keeps what Request does not model (cache
	// breakpoints, thinking settings, metadata, unknown fields). A protocol
	// of another kind ignores it and writes the translated fields, which
	// the caller fills as well.
	Native *Native
}

// Native is a request body in one protocol's own wire format.
type Native struct {
	Kind ProviderKind
	// Body is the JSON object as the caller sent it.
	Body []byte
	// Headers are caller headers a protocol of Kind passes on (Anthropic's
	// anthropic-beta); names are lower case.
	Headers map[string]string
}

// FillIn is a fill-in-the-middle prompt: the text before the gap, the text
// after it, and where the model should stop.
type FillIn struct {
	Prefix string
	Suffix string
	// Stop are sequences that end the completion; empty for none.
	Stop []string
	// Temperature is the sampling temperature; nil leaves the provider's
	// default. Edit prediction asks for 0, so that the same prompt gives
	// the same suggestion.
	Temperature *float64
}

// ServiceTierFast is the provider-independent name of the fast tier.
const ServiceTierFast = "fast"

// Reasoning are the thinking settings of a request.
type Reasoning struct {
	// Enabled asks the provider for reasoning output.
	Enabled bool
	// Effort is a provider effort level ("low", "medium", "high", "xhigh",
	// "max"); empty means the provider default and omits the field.
	Effort string
}

// Tool is a function the model may call. Parameters is a JSON Schema object.
type Tool struct {
	Name        string
	Description string
	Parameters  []byte
}

// Message is one provider-visible message. Exactly one of Parts, Assistant and
// ToolResult is set: Parts for system and user messages, Assistant for
// assistant messages, ToolResult for tool messages.
type Message struct {
	// ID is the canonical message id. Adapters never send it to a provider.
	ID         string
	Role       Role
	Parts      []Part
	Assistant  *Assistant
	ToolResult *ToolResult
}

// PartKind says what a Part holds.
type PartKind uint8

// Part kinds.
const (
	PartText PartKind = iota + 1
	PartImage
)

// Part is a piece of user or system content.
type Part struct {
	Kind  PartKind
	Text  string
	Image *Image
}

// Image is inline image content. Data holds the bytes once hydrated for a
// provider; BlobID names the content-addressed blob they came from.
type Image struct {
	MIMEType string
	Data     []byte
	BlobID   string
	Path     string
}

// Assistant is an assistant turn: visible text, thinking, provider replay
// state and the tool calls in the model's original order.
type Assistant struct {
	Text     string
	Thinking string
	Replay   *ReplayState
	Calls    []ToolCall
}

// ToolCall is one call the model asked for.
type ToolCall struct {
	// Index is the position the model gave the call in its turn.
	Index int
	// CallID is the provider's call id; unique within a tool round only.
	CallID string
	Name   string
	// Arguments is a JSON object; "{}" when the model sent none or invalid JSON.
	Arguments []byte
	// ArgumentError is set when the model's arguments were not a JSON object;
	// the call then completes as a tool error without reaching the client.
	ArgumentError string
}

// ToolResult is the outcome of one tool call.
type ToolResult struct {
	CallID  string
	Name    string
	Content string
	IsError bool
	// Image is an image the tool produced (for example Read of a PNG).
	Image *Image
}

// ReplayState is a provider-native artefact (reasoning items, signed thinking
// blocks, reasoning_content) stored with an assistant turn so it can be sent
// back verbatim to an adapter of the same Kind.
type ReplayState struct {
	Kind  ProviderKind
	Value []byte
}
