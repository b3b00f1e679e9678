package company

import (
	"bytes"
	"encoding/json"
	"fmt"
	"math"
	"time"

	"keygate/domain/budget"
)

// policyJSON is the file format of a budget policy (KEYGATE_BUDGETS_FILE),
// in the units people write: dollars, not micro-dollars.
//
//	{
//	  "default": {"tokensPerDay": 2000000, "costPerMonthUSD": 200, "concurrentRuns": 3,
//	              "concurrentSubagents": 12, "requestsPerMinute": 60, "tokensPerMinute": 400000},
//	  "users":   {"ada@example.com": {"costPerMonthUSD": 500}},
//	  "prices":  {"claude-sonnet-4-5": {"input": 3, "output": 15, "cacheRead": 0.3, "cacheWrite": 3.75}},
//	  "leaseSeconds": 120
//	}
type policyJSON struct {
	Default      limitsJSON            `json:"default"`
	Users        map[string]limitsJSON `json:"users"`
	Prices       map[string]priceJSON  `json:"prices"`
	LeaseSeconds int                   `json:"leaseSeconds"`
}

type limitsJSON struct {
	TokensPerDay    int64   `json:"tokensPerDay"`
	CostPerMonthUSD float64 `json:"costPerMonthUSD"`
	ConcurrentRuns  int     `json:"concurrentRuns"`
	// ConcurrentSubagents: 0 takes budget.SubagentsPerRun per concurrent run.
	ConcurrentSubagents int   `json:"concurrentSubagents"`
	RequestsPerMinute   int64 `json:"requestsPerMinute"`
	TokensPerMinute     int64 `json:"tokensPerMinute"`
}

// priceJSON is USD per million tokens.
type priceJSON struct {
	Input      float64 `json:"input"`
	Output     float64 `json:"output"`
	CacheRead  float64 `json:"cacheRead"`
	CacheWrite float64 `json:"cacheWrite"`
}

// ParseBudgetPolicy reads a policy in the format above. Unknown fields and
// negative numbers are errors, so a typo cannot silently lift a limit.
func ParseBudgetPolicy(doc []byte) (BudgetPolicy, error) {
	var in policyJSON
	dec := json.NewDecoder(bytes.NewReader(doc))
	dec.DisallowUnknownFields()
	if err := dec.Decode(&in); err != nil {
		return BudgetPolicy{}, fmt.Errorf("budget policy: %w", err)
	}
	if in.LeaseSeconds < 0 {
		return BudgetPolicy{}, fmt.Errorf("budget policy: leaseSeconds is negative")
	}
	def, err := in.Default.limits("default")
	if err != nil {
		return BudgetPolicy{}, err
	}
	out := BudgetPolicy{Default: def, PerUser: map[string]budget.Limits{}, Prices: map[string]budget.Price{},
		LeaseTTL: time.Duration(in.LeaseSeconds) * time.Second}
	for user, l := range in.Users {
		if out.PerUser[user], err = l.limits("user " + user); err != nil {
			return BudgetPolicy{}, err
		}
	}
	for model, p := range in.Prices {
		if p.Input < 0 || p.Output < 0 || p.CacheRead < 0 || p.CacheWrite < 0 {
			return BudgetPolicy{}, fmt.Errorf("budget policy: price of %s is negative", model)
		}
		out.Prices[model] = PriceFromUSD(p.Input, p.Output, p.CacheRead, p.CacheWrite)
	}
	return out, nil
}

func (l limitsJSON) limits(who string) (budget.Limits, error) {
	if l.TokensPerDay < 0 || l.CostPerMonthUSD < 0 || l.ConcurrentRuns < 0 || l.ConcurrentSubagents < 0 || l.RequestsPerMinute < 0 || l.TokensPerMinute < 0 {
		return budget.Limits{}, fmt.Errorf("budget policy: a limit of %s is negative", who)
	}
	return budget.Limits{TokensPerDay: l.TokensPerDay, CostPerMonth: micros(l.CostPerMonthUSD), ConcurrentRuns: l.ConcurrentRuns,
		ConcurrentSubagents: l.ConcurrentSubagents, RequestsPerMinute: l.RequestsPerMinute, TokensPerMinute: l.TokensPerMinute}, nil
}

func micros(usd float64) int64 { return int64(math.Round(usd * 1e6)) }

// PriceFromUSD converts prices in USD per million tokens, as people write
// them (and the console stores them), to a budget.Price.
func PriceFromUSD(input, output, cacheRead, cacheWrite float64) budget.Price {
	return budget.Price{Input: micros(input), Output: micros(output), CacheRead: micros(cacheRead), CacheWrite: micros(cacheWrite)}
}
