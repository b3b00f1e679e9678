package llm_test

import (
	. "github.com/onsi/ginkgo/v2"
	. "github.com/onsi/gomega"
	"github.com/onsi/gomega/types"

	"keygate/domain/llm"
)

func n(v int64) *int64 { return &v }

// KnowExactly succeeds when actual, an llm.Usage, knows exactly the fields f.
func KnowExactly(f llm.UsageFields) types.GomegaMatcher {
	return WithTransform(func(u llm.Usage) llm.UsageFields { return u.Known }, Equal(f))
}

var _ = Describe("llm.Usage", func() {
	DescribeTable("every protocol normalises to exclusive parts with ContextInput = Input + CacheRead + CacheWrite",
		func(u llm.Usage, input, cacheRead, cacheWrite, output, reasoning, contextInput int64, known llm.UsageFields) {
			Expect(u.Input).To(Equal(input))
			Expect(u.CacheRead).To(Equal(cacheRead))
			Expect(u.CacheWrite).To(Equal(cacheWrite))
			Expect(u.Output).To(Equal(output))
			Expect(u.Reasoning).To(Equal(reasoning))
			Expect(u.ContextInput()).To(Equal(contextInput))
			Expect(u.Total()).To(Equal(contextInput + output))
			Expect(u).To(KnowExactly(known))
		},
		Entry("cached_tokens_are_included_once_in_anthropic_context_input: Anthropic input excludes cache reads and writes",
			llm.FromAnthropic(llm.AnthropicUsage{InputTokens: n(10), CacheReadInputTokens: n(1000), CacheCreationInputTokens: n(200), OutputTokens: n(50)}),
			int64(10), int64(1000), int64(200), int64(50), int64(0), int64(1210),
			llm.UsageInput|llm.UsageCacheRead|llm.UsageCacheWrite|llm.UsageOutput),
		Entry("Chat prompt tokens include cached tokens, so cached tokens are subtracted once",
			llm.FromOpenAIChat(llm.OpenAIChatUsage{PromptTokens: n(1200), CachedTokens: n(1000), CompletionTokens: n(80), ReasoningTokens: n(30)}),
			int64(200), int64(1000), int64(0), int64(80), int64(30), int64(1200),
			llm.UsageInput|llm.UsageCacheRead|llm.UsageOutput|llm.UsageReasoning),
		Entry("Responses input tokens include cached tokens, so cached tokens are subtracted once",
			llm.FromOpenAIResponses(llm.OpenAIResponsesUsage{InputTokens: n(500), CachedTokens: n(100), OutputTokens: n(20), ReasoningTokens: n(5)}),
			int64(400), int64(100), int64(0), int64(20), int64(5), int64(500),
			llm.UsageInput|llm.UsageCacheRead|llm.UsageOutput|llm.UsageReasoning),
		Entry("a count the provider left out stays unknown, not zero",
			llm.FromOpenAIChat(llm.OpenAIChatUsage{PromptTokens: n(300), CompletionTokens: n(7)}),
			int64(300), int64(0), int64(0), int64(7), int64(0), int64(300),
			llm.UsageInput|llm.UsageOutput),
		Entry("a cached count above the input count never makes input negative",
			llm.FromOpenAIResponses(llm.OpenAIResponsesUsage{InputTokens: n(100), CachedTokens: n(150)}),
			int64(0), int64(100), int64(0), int64(0), int64(0), int64(100),
			llm.UsageInput|llm.UsageCacheRead),
		Entry("a cached count without an input count is kept as reported",
			llm.FromOpenAIChat(llm.OpenAIChatUsage{CachedTokens: n(40)}),
			int64(0), int64(40), int64(0), int64(0), int64(0), int64(40), llm.UsageCacheRead),
	)

	Describe("Add", func() {
		var withCache, withoutCache, late llm.Usage

		BeforeEach(func() {
			withCache = llm.FromAnthropic(llm.AnthropicUsage{InputTokens: n(10), CacheReadInputTokens: n(90), OutputTokens: n(5)})
			withoutCache = llm.FromOpenAIChat(llm.OpenAIChatUsage{PromptTokens: n(20), CompletionTokens: n(3)})
			late = llm.FromOpenAIResponses(llm.OpenAIResponsesUsage{OutputTokens: n(4), ReasoningTokens: n(2)})
		})

		DescribeTable("sums a run's cycles without losing what any cycle reported",
			func(sum func() llm.Usage, check func(llm.Usage)) { check(sum()) },
			Entry("a_record_without_cache_details_keeps_the_counts_already_accumulated",
				func() llm.Usage { return withCache.Add(withoutCache) },
				func(u llm.Usage) {
					Expect(u.CacheRead).To(Equal(int64(90)))
					Expect(u.Has(llm.UsageCacheRead)).To(BeTrue())
					Expect(u.Input).To(Equal(int64(30)))
				}),
			Entry("a_late_reported_count_is_not_discarded",
				func() llm.Usage { return withoutCache.Add(late) },
				func(u llm.Usage) {
					Expect(u.Reasoning).To(Equal(int64(2)))
					Expect(u.Has(llm.UsageReasoning)).To(BeTrue())
					Expect(u.Output).To(Equal(int64(7)))
				}),
			Entry("a_field_no_call_reported_stays_unknown",
				func() llm.Usage { return withCache.Add(withoutCache).Add(late) },
				func(u llm.Usage) { Expect(u.Has(llm.UsageCacheWrite)).To(BeFalse()) }),
			Entry("adding the zero usage changes nothing",
				func() llm.Usage { return withCache.Add(llm.Usage{}) },
				func(u llm.Usage) { Expect(u).To(Equal(withCache)) }),
		)
	})
})
