package llm

// The provider usage blocks below mirror what each protocol reports, one
// pointer per count: nil means the provider left the count out, which keeps
// it unknown in the normalised [Usage] instead of turning it into zero.
// Adapters decode the JSON usage object straight into these shapes.

// AnthropicUsage is an Anthropic Messages usage block. Anthropic counts input
// exclusive of cached tokens.
type AnthropicUsage struct {
	InputTokens              *int64
	CacheReadInputTokens     *int64
	CacheCreationInputTokens *int64
	OutputTokens             *int64
}

// OpenAIChatUsage is an OpenAI Chat Completions usage block. Prompt tokens
// include cached tokens; completion tokens include reasoning tokens.
type OpenAIChatUsage struct {
	PromptTokens *int64
	// CachedTokens is prompt_tokens_details.cached_tokens.
	CachedTokens     *int64
	CompletionTokens *int64
	// ReasoningTokens is completion_tokens_details.reasoning_tokens.
	ReasoningTokens *int64
}

// OpenAIResponsesUsage is an OpenAI Responses usage block. Input tokens
// include cached tokens; output tokens include reasoning tokens.
type OpenAIResponsesUsage struct {
	InputTokens *int64
	// CachedTokens is input_tokens_details.cached_tokens.
	CachedTokens *int64
	OutputTokens *int64
	// ReasoningTokens is output_tokens_details.reasoning_tokens.
	ReasoningTokens *int64
}

// FromAnthropic normalises an Anthropic usage block. Its counts are already
// exclusive, so they map one to one.
func FromAnthropic(a AnthropicUsage) Usage {
	var u Usage
	u.set(UsageInput, a.InputTokens)
	u.set(UsageCacheRead, a.CacheReadInputTokens)
	u.set(UsageCacheWrite, a.CacheCreationInputTokens)
	u.set(UsageOutput, a.OutputTokens)
	return u
}

// FromOpenAIChat normalises a Chat Completions usage block.
func FromOpenAIChat(c OpenAIChatUsage) Usage {
	return fromInclusive(c.PromptTokens, c.CachedTokens, c.CompletionTokens, c.ReasoningTokens)
}

// FromOpenAIResponses normalises a Responses usage block.
func FromOpenAIResponses(r OpenAIResponsesUsage) Usage {
	return fromInclusive(r.InputTokens, r.CachedTokens, r.OutputTokens, r.ReasoningTokens)
}

// fromInclusive splits an input count that includes cached tokens into the
// exclusive parts. OpenAI reports no cache writes, so CacheWrite stays
// unknown. A cached count above the input count (seen from compatible
// servers) is capped so Input never goes negative.
func fromInclusive(input, cached, output, reasoning *int64) Usage {
	var u Usage
	if cached != nil && input != nil {
		c := min(*cached, *input)
		u.set(UsageCacheRead, &c)
		fresh := *input - c
		u.set(UsageInput, &fresh)
	} else {
		u.set(UsageInput, input)
		u.set(UsageCacheRead, cached)
	}
	u.set(UsageOutput, output)
	u.set(UsageReasoning, reasoning)
	return u
}

func (u *Usage) set(f UsageFields, v *int64) {
	if v == nil {
		return
	}
	u.Known |= f
	switch f {
	case UsageInput:
		u.Input = *v
	case UsageCacheRead:
		u.CacheRead = *v
	case UsageCacheWrite:
		u.CacheWrite = *v
	case UsageOutput:
		u.Output = *v
	case UsageReasoning:
		u.Reasoning = *v
	}
}
