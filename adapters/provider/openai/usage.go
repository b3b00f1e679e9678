package openai

import "keygate/domain/llm"

// Both OpenAI protocols count inclusively: the input count includes the
// cached tokens its details report, and the output count includes the
// reasoning tokens (llm.InclusiveUsage). OpenAI reports no cache writes. A
// count left out of the block stays unknown.

// chatUsage is a Chat Completions usage block.
type chatUsage struct {
	PromptTokens        *int64 `json:"prompt_tokens"`
	CompletionTokens    *int64 `json:"completion_tokens"`
	PromptTokensDetails *struct {
		CachedTokens *int64 `json:"cached_tokens"`
	} `json:"prompt_tokens_details"`
	CompletionTokensDetails *struct {
		ReasoningTokens *int64 `json:"reasoning_tokens"`
	} `json:"completion_tokens_details"`
}

// respUsage is a Responses usage block.
type respUsage struct {
	InputTokens        *int64 `json:"input_tokens"`
	OutputTokens       *int64 `json:"output_tokens"`
	InputTokensDetails *struct {
		CachedTokens *int64 `json:"cached_tokens"`
	} `json:"input_tokens_details"`
	OutputTokensDetails *struct {
		ReasoningTokens *int64 `json:"reasoning_tokens"`
	} `json:"output_tokens_details"`
}

func chatToUsage(u *chatUsage) *llm.Usage {
	c := llm.UsageCounts{Input: u.PromptTokens, Output: u.CompletionTokens}
	if u.PromptTokensDetails != nil {
		c.CacheRead = u.PromptTokensDetails.CachedTokens
	}
	if u.CompletionTokensDetails != nil {
		c.Reasoning = u.CompletionTokensDetails.ReasoningTokens
	}
	n := llm.InclusiveUsage(c)
	return &n
}

func respToUsage(u *respUsage) *llm.Usage {
	c := llm.UsageCounts{Input: u.InputTokens, Output: u.OutputTokens}
	if u.InputTokensDetails != nil {
		c.CacheRead = u.InputTokensDetails.CachedTokens
	}
	if u.OutputTokensDetails != nil {
		c.Reasoning = u.OutputTokensDetails.ReasoningTokens
	}
	n := llm.InclusiveUsage(c)
	return &n
}
