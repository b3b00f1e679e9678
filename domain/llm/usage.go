package llm

// Usage is token accounting in one normalised shape. Providers count
// differently: Anthropic reports input without cached tokens, OpenAI includes
// them. Usage always stores the exclusive parts (see [UsageCounts]), so that
//
//	ContextInput = Input + CacheRead + CacheWrite
//
// holds for every protocol. Reasoning tokens are part of Output.
// A field is known only when its bit is set in Known: a provider that does
// not report a count leaves it unknown rather than zero.
type Usage struct {
	// Input is fresh (uncached) input tokens.
	Input int64
	// CacheRead is input tokens served from the provider's prompt cache.
	CacheRead int64
	// CacheWrite is input tokens written to the provider's prompt cache.
	CacheWrite int64
	// Output is generated tokens, reasoning included.
	Output int64
	// Reasoning is the part of Output spent on reasoning.
	Reasoning int64
	// Known marks which counts the provider reported.
	Known UsageFields
}

// UsageFields is a bit set over the counts of a [Usage].
type UsageFields uint8

// Usage fields.
const (
	UsageInput UsageFields = 1 << iota
	UsageCacheRead
	UsageCacheWrite
	UsageOutput
	UsageReasoning
)
