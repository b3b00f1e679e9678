package budget_test

import (
	"errors"
	"time"

	. "github.com/onsi/ginkgo/v2"
	. "github.com/onsi/gomega"

	"keygate/domain/budget"
	"keygate/domain/llm"
)

var now = time.Date(2026, 11, 30, 21, 30, 0, 0, time.UTC)

var _ = DescribeTable("Limits.Check",
	func(l budget.Limits, u budget.Usage, limit budget.Limit) {
		err := l.Check(u, now)
		if limit == "" {
			Expect(err).NotTo(HaveOccurred())
			return
		}
		var ex *budget.ExceededError
		Expect(errors.As(err, &ex)).To(BeTrue(), "a *budget.ExceededError: %v", err)
		Expect(ex.Limit).To(Equal(limit))
	},
	Entry("no limits allow everything", budget.Limits{}, budget.Usage{TokensToday: 1e12, CostThisMonth: 1e12}, budget.Limit("")),
	Entry("usage below the daily tokens passes", budget.Limits{TokensPerDay: 100}, budget.Usage{TokensToday: 99}, budget.Limit("")),
	Entry("usage at the daily tokens stops the call", budget.Limits{TokensPerDay: 100}, budget.Usage{TokensToday: 100}, budget.LimitTokensPerDay),
	Entry("spending at the monthly cost stops the call", budget.Limits{CostPerMonth: 5e6}, budget.Usage{CostThisMonth: 5e6}, budget.LimitCostPerMonth),
)

var _ = Describe("ExceededError", func() {
	It("tells the Cursor user what stopped the turn and when it resets", func() {
		err := budget.Limits{TokensPerDay: 1000}.Check(budget.Usage{TokensToday: 1200}, now)
		Expect(err.Error()).To(ContainSubstring("1200 of your 1000 tokens for today"))
		Expect(err.Error()).To(ContainSubstring("resets at 00:00 UTC"))
		err = budget.Limits{CostPerMonth: 20e6}.Check(budget.Usage{CostThisMonth: 20_500_000}, now)
		Expect(err.Error()).To(ContainSubstring("$20.50 of your $20.00"))
		Expect(err.Error()).To(ContainSubstring("resets on 1 December"))
	})
})

var _ = Describe("windows", func() {
	It("names a day and a month counter in UTC", func() {
		late := time.Date(2026, 12, 1, 1, 0, 0, 0, time.FixedZone("UTC+3", 3*3600))
		Expect(budget.DayKey(late)).To(Equal("d2026-11-30"))
		Expect(budget.MonthKey(late)).To(Equal("m2026-11"))
		Expect(budget.MonthStart(late)).To(Equal(time.Date(2026, 11, 1, 0, 0, 0, 0, time.UTC)))
	})
})

var _ = DescribeTable("Price.Cost",
	func(p budget.Price, u llm.Usage, micros int64) { Expect(p.Cost(u)).To(Equal(micros)) },
	Entry("a million input tokens cost the input price", budget.Price{Input: 3e6}, llm.Usage{Input: 1e6}, int64(3e6)),
	Entry("every token kind is priced", budget.Price{Input: 3e6, Output: 15e6, CacheRead: 3e5, CacheWrite: 375e4},
		llm.Usage{Input: 1000, Output: 1000, CacheRead: 1000, CacheWrite: 1000}, int64(3000+15000+300+3750)),
	Entry("a fraction of a micro-dollar rounds up", budget.Price{Input: 1}, llm.Usage{Input: 1}, int64(1)),
	Entry("an unpriced model is free", budget.Price{}, llm.Usage{Input: 1e6}, int64(0)),
)

var _ = Describe("Limits.CheckMinute", func() {
	It("refuses a call once the minute's requests or tokens reached their limit, naming the next minute", func() {
		l := budget.Limits{RequestsPerMinute: 10, TokensPerMinute: 1000}
		Expect(l.CheckMinute(9, 999, now)).To(Succeed())
		err := l.CheckMinute(10, 0, now)
		var ex *budget.ExceededError
		Expect(errors.As(err, &ex)).To(BeTrue())
		Expect(ex.Limit).To(Equal(budget.LimitRequestsPerMinute))
		Expect(ex.ResetsAt).To(Equal(budget.MinuteStart(now).Add(time.Minute)))
		Expect(err.Error()).To(ContainSubstring("Try again after 21:31:00 UTC"))
		Expect(l.CheckMinute(0, 1000, now)).To(MatchError(ContainSubstring("1000 of your 1000 tokens for this minute")))
		Expect(budget.Limits{}.CheckMinute(1e9, 1e9, now)).To(Succeed(), "no limit, no refusal")
	})
})

var _ = DescribeTable("Limits.SubagentLimit",
	func(l budget.Limits, want int) { Expect(l.SubagentLimit()).To(Equal(want)) },
	Entry("no limits leave subagents unbounded", budget.Limits{}, 0),
	Entry("concurrent runs bound subagents by default, a few per run", budget.Limits{ConcurrentRuns: 2}, 2*budget.SubagentsPerRun),
	Entry("an explicit limit wins", budget.Limits{ConcurrentRuns: 2, ConcurrentSubagents: 3}, 3),
	Entry("an explicit limit applies without a run limit", budget.Limits{ConcurrentSubagents: 5}, 5),
)
