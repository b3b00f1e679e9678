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
	DescribeTable("both counting conventions normalise to exclusive parts with ContextInput = Input + CacheRead + CacheWrite",
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
		Entry("cached_tokens_are_included_once_in_exclusive_context_input: exclusive input counts neither cache reads nor writes",
			llm.ExclusiveUsage(llm.UsageCounts{Input: n(10), CacheRead: n(1000), CacheWrite: n(200), Output: n(50)}),
			int64(10), int64(1000), int64(200), int64(50), int64(0), int64(1210),
			llm.UsageInput|llm.UsageCacheRead|llm.UsageCacheWrite|llm.UsageOutput),
		Entry("exclusive reasoning is kept as a part of output",
			llm.ExclusiveUsage(llm.UsageCounts{Input: n(40), Output: n(8), Reasoning: n(3)}),
			int64(40), int64(0), int64(0), int64(8), int64(3), int64(40),
			llm.UsageInput|llm.UsageOutput|llm.UsageReasoning),
		Entry("inclusive input includes cached tokens, so cached tokens are subtracted once",
			llm.InclusiveUsage(llm.UsageCounts{Input: n(1200), CacheRead: n(1000), Output: n(80), Reasoning: n(30)}),
			int64(200), int64(1000), int64(0), int64(80), int64(30), int64(1200),
			llm.UsageInput|llm.UsageCacheRead|llm.UsageOutput|llm.UsageReasoning),
		Entry("a count the provider left out stays unknown, not zero",
			llm.InclusiveUsage(llm.UsageCounts{Input: n(300), Output: n(7)}),
			int64(300), int64(0), int64(0), int64(7), int64(0), int64(300),
			llm.UsageInput|llm.UsageOutput),
		Entry("a cached count above the input count never makes input negative",
			llm.InclusiveUsage(llm.UsageCounts{Input: n(100), CacheRead: n(150)}),
			int64(0), int64(100), int64(0), int64(0), int64(0), int64(100),
			llm.UsageInput|llm.UsageCacheRead),
		Entry("a cached count without an input count is kept as reported",
			llm.InclusiveUsage(llm.UsageCounts{CacheRead: n(40)}),
			int64(0), int64(40), int64(0), int64(0), int64(0), int64(40), llm.UsageCacheRead),
	)

	Describe("Add", func() {
		var withCache, withoutCache, late llm.Usage

		BeforeEach(func() {
			withCache = llm.ExclusiveUsage(llm.UsageCounts{Input: n(10), CacheRead: n(90), Output: n(5)})
			withoutCache = llm.InclusiveUsage(llm.UsageCounts{Input: n(20), Output: n(3)})
			late = llm.InclusiveUsage(llm.UsageCounts{Output: n(4), Reasoning: n(2)})
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
