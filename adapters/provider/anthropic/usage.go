package anthropic

import "keygate/domain/llm"

// rawUsage is a Messages usage block. Anthropic counts input exclusive of
// cached tokens: input_tokens, cache_read_input_tokens and
// cache_creation_input_tokens add up to the context, and thinking tokens
// (reported by newer responses only) are part of output_tokens. nil fields
// were not sent and keep the value an earlier event reported.
type rawUsage struct {
	InputTokens              *int64 `json:"input_tokens"`
	OutputTokens             *int64 `json:"output_tokens"`
	CacheReadInputTokens     *int64 `json:"cache_read_input_tokens"`
	CacheCreationInputTokens *int64 `json:"cache_creation_input_tokens"`
	OutputTokensDetails      *struct {
		ThinkingTokens *int64 `json:"thinking_tokens"`
	} `json:"output_tokens_details"`
}

// merge overwrites each count the event reported; message_delta carries
// cumulative totals and newer responses repeat input and cache counts.
func (d *Decoder) merge(u *rawUsage) {
	if u == nil {
		return
	}
	d.haveUsage = true
	set := func(dst **int64, src *int64) {
		if src != nil {
			*dst = src
		}
	}
	set(&d.usage.Input, u.InputTokens)
	set(&d.usage.Output, u.OutputTokens)
	set(&d.usage.CacheRead, u.CacheReadInputTokens)
	set(&d.usage.CacheWrite, u.CacheCreationInputTokens)
	if u.OutputTokensDetails != nil {
		set(&d.usage.Reasoning, u.OutputTokensDetails.ThinkingTokens)
	}
}

func (d *Decoder) normalisedUsage() *llm.Usage {
	u := llm.ExclusiveUsage(d.usage)
	return &u
}
