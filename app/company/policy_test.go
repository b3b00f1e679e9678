package company_test

import (
	"os"
	"time"

	. "github.com/onsi/ginkgo/v2"
	. "github.com/onsi/gomega"

	"keygate/app/company"
	"keygate/domain/budget"
)

var _ = Describe("ParseBudgetPolicy", func() {
	It("reads limits in dollars and prices per million tokens into micro-dollars", func() {
		p, err := company.ParseBudgetPolicy([]byte(`{
			"default": {"tokensPerDay": 2000000, "costPerMonthUSD": 200.5, "concurrentRuns": 3},
			"users": {"ada": {"costPerMonthUSD": 500}},
			"prices": {"claude-x": {"input": 3, "output": 15, "cacheRead": 0.3, "cacheWrite": 3.75}},
			"leaseSeconds": 90}`))
		Expect(err).NotTo(HaveOccurred())
		Expect(p.Default).To(Equal(budget.Limits{TokensPerDay: 2_000_000, CostPerMonth: 200_500_000, ConcurrentRuns: 3}))
		Expect(p.PerUser).To(HaveKeyWithValue("ada", budget.Limits{CostPerMonth: 500_000_000}))
		Expect(p.Prices).To(HaveKeyWithValue("claude-x", budget.Price{Input: 3e6, Output: 15e6, CacheRead: 3e5, CacheWrite: 3_750_000}))
		Expect(p.LeaseTTL).To(Equal(90 * time.Second))
	})

	It("reads the documented example policy", func() {
		doc, err := os.ReadFile("../../deploy/budgets.example.json")
		Expect(err).NotTo(HaveOccurred())
		p, err := company.ParseBudgetPolicy(doc)
		Expect(err).NotTo(HaveOccurred())
		Expect(p.PerUser).To(HaveKey("ada@example.com"))
		Expect(p.Default.ConcurrentRuns).To(Equal(3))
		Expect(p.Default.SubagentLimit()).To(Equal(12))
		Expect(p.Default.RequestsPerMinute).To(Equal(int64(60)))
		Expect(p.Default.TokensPerMinute).To(Equal(int64(400_000)))
	})

	DescribeTable("refuses a policy that could lift a limit by mistake",
		func(doc string) {
			_, err := company.ParseBudgetPolicy([]byte(doc))
			Expect(err).To(MatchError(ContainSubstring("budget policy")))
		},
		Entry("a misspelt field", `{"default": {"tokensPerDai": 10}}`),
		Entry("a negative limit", `{"default": {"concurrentRuns": -1}}`),
		Entry("a negative subagent limit", `{"default": {"concurrentSubagents": -1}}`),
		Entry("a negative per-minute limit", `{"users": {"ada": {"requestsPerMinute": -1}}}`),
		Entry("a negative price", `{"prices": {"m": {"input": -1}}}`),
		Entry("text that is not JSON", `tokensPerDay=10`),
	)
})
