package llm

// UsageCounts are token counts as a provider reported them, one pointer per
// count: nil means the provider left the count out, which keeps it unknown
// in the normalised [Usage] instead of turning it into zero. Which counts
// include which others differs between providers; [ExclusiveUsage] and
// [InclusiveUsage] are the two conventions in use. Provider adapters decode
// their own usage shapes and fill these.
type UsageCounts struct {
	Input      *int64
	CacheRead  *int64
	CacheWrite *int64
	Output     *int64
	Reasoning  *int64
}

// ExclusiveUsage normalises counts that exclude one another's tokens: Input
// counts neither cache reads nor cache writes (Anthropic's convention), so
// every count maps one to one.
func ExclusiveUsage(c UsageCounts) Usage {
	var u Usage
	u.set(UsageInput, c.Input)
	u.set(UsageCacheRead, c.CacheRead)
	u.set(UsageCacheWrite, c.CacheWrite)
	u.set(UsageOutput, c.Output)
	u.set(UsageReasoning, c.Reasoning)
	return u
}

// InclusiveUsage normalises counts where Input includes the cached tokens
// CacheRead counts, and Output includes Reasoning (OpenAI's convention).
// The cached count is subtracted from Input once; a cached count above the
// input count (seen from compatible servers) is capped so Input never goes
// negative. CacheWrite maps as given.
func InclusiveUsage(c UsageCounts) Usage {
	var u Usage
	if c.CacheRead != nil && c.Input != nil {
		cached := min(*c.CacheRead, *c.Input)
		u.set(UsageCacheRead, &cached)
		fresh := *c.Input - cached
		u.set(UsageInput, &fresh)
	} else {
		u.set(UsageInput, c.Input)
		u.set(UsageCacheRead, c.CacheRead)
	}
	u.set(UsageCacheWrite, c.CacheWrite)
	u.set(UsageOutput, c.Output)
	u.set(UsageReasoning, c.Reasoning)
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
