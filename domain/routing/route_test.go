package routing_test

import (
	"time"

	. "github.com/onsi/ginkgo/v2"
	. "github.com/onsi/gomega"

	"keygate/domain/routing"
)

func modelIDs(p routing.Plan) []string {
	out := make([]string, len(p.Targets))
	for i, t := range p.Targets {
		out[i] = t.ModelID
	}
	return out
}

var _ = Describe("PlanTargets", func() {
	alias := routing.Route{ID: "sonnet", Alias: true, Strategy: routing.TargetsOrdered,
		Targets: []routing.TargetRef{{ModelID: "east", Weight: 1}, {ModelID: "west", Weight: 1}, {ModelID: "north", Weight: 1}}}
	first := func(int) int { return 0 }
	resting := func(id string, err string) map[string]routing.Health {
		return map[string]routing.Health{routing.TargetSubject(id): {CoolUntil: now.Add(time.Minute), LastError: err}}
	}

	It("tries a new conversation's targets in the configured order", func() {
		p := routing.PlanTargets(alias, nil, "", now, nil, first)
		Expect(modelIDs(p)).To(Equal([]string{"east", "west", "north"}))
		Expect(p.Moved).To(BeEmpty())
	})

	It("keeps a conversation on the target that served its last call while that target is healthy", func() {
		p := routing.PlanTargets(alias, nil, "north", now, nil, first)
		Expect(modelIDs(p)).To(Equal([]string{"north", "east", "west"}))
		Expect(p.Moved).To(BeEmpty())
	})

	It("moves a conversation whose target rests, saying why, and tries the resting target last", func() {
		p := routing.PlanTargets(alias, resting("north", "HTTP 503: overloaded"), "north", now, nil, first)
		Expect(modelIDs(p)).To(Equal([]string{"east", "west", "north"}))
		Expect(p.Moved).To(Equal("the conversation's target north is resting after: HTTP 503: overloaded"))
	})

	It("moves a conversation off a drained target, which takes no call at all", func() {
		drained := alias
		drained.Targets = []routing.TargetRef{{ModelID: "east"}, {ModelID: "west", Drained: true}}
		p := routing.PlanTargets(drained, nil, "west", now, nil, first)
		Expect(modelIDs(p)).To(Equal([]string{"east"}))
		Expect(p.Moved).To(Equal("an administrator drained the conversation's target west"))
	})

	It("says so when the conversation's target left the alias", func() {
		p := routing.PlanTargets(alias, nil, "gone", now, nil, first)
		Expect(p.Moved).To(Equal("the conversation's target gone left the alias"))
		Expect(modelIDs(p)).To(HaveLen(3))
	})

	It("treats a target over its per-minute limit like a resting one", func() {
		p := routing.PlanTargets(alias, nil, "", now, func(id string) bool { return id == "east" }, first)
		Expect(modelIDs(p)).To(Equal([]string{"west", "north", "east"}))
	})

	It("spreads new conversations over weighted targets in proportion to their weights", func() {
		weighted := routing.Route{ID: "w", Alias: true, Strategy: routing.TargetsWeighted,
			Targets: []routing.TargetRef{{ModelID: "big", Weight: 3}, {ModelID: "small", Weight: 1}}}
		counts := map[string]int{}
		for pick := range 4 {
			p := routing.PlanTargets(weighted, nil, "", now, nil, func(n int) int {
				if n == 4 {
					return pick
				}
				return 0
			})
			counts[p.Targets[0].ModelID]++
		}
		Expect(counts).To(Equal(map[string]int{"big": 3, "small": 1}))
	})
})
