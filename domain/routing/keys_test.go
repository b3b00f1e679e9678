package routing_test

import (
	"net/http"
	"time"

	. "github.com/onsi/ginkgo/v2"
	. "github.com/onsi/gomega"

	"keygate/domain/llm"
	"keygate/domain/routing"
)

var now = time.Date(2026, 12, 1, 9, 0, 0, 0, time.UTC)

func ids(keys []routing.Key) []string {
	out := make([]string, len(keys))
	for i, k := range keys {
		out[i] = k.ID
	}
	return out
}

var _ = Describe("KeyOrder", func() {
	pool := []routing.Key{{ID: "a", Weight: 1}, {ID: "b", Weight: 1}, {ID: "c", Weight: 1}}
	never := func(int) int { panic("round-robin draws nothing") }

	It("takes the keys in turn, each call starting one further", func() {
		var firsts []string
		for turn := range uint64(4) {
			firsts = append(firsts, routing.KeyOrder(pool, routing.KeysRoundRobin, nil, now, turn, never)[0].ID)
		}
		Expect(firsts).To(Equal([]string{"a", "b", "c", "a"}))
		Expect(ids(routing.KeyOrder(pool, routing.KeysRoundRobin, nil, now, 1, never))).To(Equal([]string{"b", "c", "a"}))
	})

	It("puts cooling keys last, the soonest back first, and uses them only as a last resort", func() {
		health := map[string]routing.Health{
			routing.KeySubject("a"): {CoolUntil: now.Add(time.Minute)},
			routing.KeySubject("b"): {CoolUntil: now.Add(time.Second)},
			routing.KeySubject("c"): {CoolUntil: now.Add(-time.Second), Failures: 2}, // rested long enough
		}
		Expect(ids(routing.KeyOrder(pool, routing.KeysRoundRobin, health, now, 0, never))).To(Equal([]string{"c", "b", "a"}))
	})

	It("draws weighted keys in proportion to their weights", func() {
		heavy := []routing.Key{{ID: "light", Weight: 1}, {ID: "heavy", Weight: 3}}
		counts := map[string]int{}
		for pick := range 4 {
			order := routing.KeyOrder(heavy, routing.KeysWeighted, nil, now, 0, func(n int) int {
				Expect(n).To(BeElementOf(4, 3, 1), "the first draw spans the sum of the weights")
				if n == 4 {
					return pick
				}
				return 0
			})
			Expect(order).To(HaveLen(2))
			counts[order[0].ID]++
		}
		Expect(counts).To(Equal(map[string]int{"light": 1, "heavy": 3}))
	})
})

var _ = DescribeTable("Judge",
	func(class llm.ErrorClass, retryAfter time.Duration, want routing.Verdict) {
		err := &llm.ProviderError{Class: class, Status: http.StatusTooManyRequests, RetryAfter: retryAfter}
		Expect(routing.Judge(err, time.Minute, 30*time.Second)).To(Equal(want))
	},
	Entry("a 429 rests the key for the provider's Retry-After and tries the next key, then the next target",
		llm.ErrorRateLimit, 7*time.Second, routing.Verdict{CoolKey: true, NextKey: true, NextTarget: true, Rest: 7 * time.Second}),
	Entry("a 429 without Retry-After rests the key for the provider's configured time",
		llm.ErrorRateLimit, time.Duration(0), routing.Verdict{CoolKey: true, NextKey: true, NextTarget: true, Rest: time.Minute}),
	Entry("a 401 is a key's authentication failure",
		llm.ErrorAuthorization, time.Duration(0), routing.Verdict{CoolKey: true, Auth: true, NextKey: true, NextTarget: true, Rest: time.Minute}),
	Entry("a 5xx, a refused connection or a stall rests the target and moves to the next one",
		llm.ErrorTransient, time.Duration(0), routing.Verdict{CoolTarget: true, NextTarget: true, Rest: 30 * time.Second}),
	Entry("a bad request moves nothing: every target would refuse it", llm.ErrorBadRequest, time.Duration(0), routing.Verdict{}),
	Entry("a context overflow moves nothing", llm.ErrorContextOverflow, time.Duration(0), routing.Verdict{}),
	Entry("a content filter moves nothing", llm.ErrorContentFilter, time.Duration(0), routing.Verdict{}),
	Entry("a broken stream moves nothing", llm.ErrorProtocol, time.Duration(0), routing.Verdict{}),
)

var _ = Describe("Health", func() {
	It("counts failures and authentication failures until a success, keeping the later rest and the last error", func() {
		h := routing.Health{}.Record(routing.Failure{At: now, Message: "401", Auth: true, CoolUntil: now.Add(time.Minute)})
		h = h.Record(routing.Failure{At: now.Add(time.Second), Message: "429", CoolUntil: now.Add(time.Second)})
		Expect(h.Failures).To(Equal(2))
		Expect(h.AuthFailures).To(Equal(1))
		Expect(h.CoolUntil).To(Equal(now.Add(time.Minute)))
		Expect(h.LastError).To(Equal("429"))
		Expect(h.Cooling(now.Add(30 * time.Second))).To(BeTrue())
		Expect(h.Clean()).To(BeFalse())
		r := h.Recovered()
		Expect(r.Clean()).To(BeTrue())
		Expect(r.LastError).To(Equal("429"), "people still see what happened")
	})

	It("takes a key out of its pool after three authentication failures in a row", func() {
		h := routing.Health{}
		for range routing.DisableAfter - 1 {
			h = h.Record(routing.Failure{Auth: true})
		}
		Expect(routing.ShouldDisable(h)).To(BeFalse())
		Expect(routing.ShouldDisable(h.Record(routing.Failure{Auth: true}))).To(BeTrue())
		Expect(routing.ShouldDisable(h.Recovered().Record(routing.Failure{Auth: true}))).To(BeFalse())
	})
})
