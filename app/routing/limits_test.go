package routing_test

import (
	"context"
	"errors"
	"time"

	. "github.com/onsi/ginkgo/v2"
	. "github.com/onsi/gomega"

	"keygate/adapters/provider/providertest"
	"keygate/domain/llm"
)

// limit sets a deployment's model's per-minute limits.
func (b *bench) limit(d *deployment, rpm, tpm int64) {
	GinkgoHelper()
	m, err := b.models.Get(context.Background(), d.model)
	Expect(err).NotTo(HaveOccurred())
	s := m.Settings
	s.RequestsPerMinute, s.TokensPerMinute = rpm, tpm
	_, err = b.models.Update(context.Background(), d.model, s, "")
	Expect(err).NotTo(HaveOccurred())
}

var _ = Describe("Per-minute limits of a target", func() {
	var b *bench
	BeforeEach(func() { b = newBench(openSQLite()) })

	It("passes over a target at its requests per minute to the next one, saying so, and uses it again the next minute", func() {
		b.limit(b.east, 1, 0)
		b.east.server.Enqueue(answer("east"))
		Expect(b.call("conv-a", "sonnet").text).To(Equal("east"))
		b.west.server.Enqueue(answer("west"))
		res := b.call("conv-b", "sonnet")
		Expect(res.text).To(Equal("west"))
		recs := b.records(res.callID)
		Expect(recs).To(HaveLen(1), "a target over its limit is not called at all")
		Expect(recs[0].Route.Moved).To(Equal("failover: target " + b.east.model + " was at its per-minute limit (1 of 1 requests)"))

		b.clock.Advance(time.Minute)
		b.east.server.Enqueue(answer("east again"))
		Expect(b.call("conv-c", "sonnet").text).To(Equal("east again"))
	})

	It("counts a served call's tokens against the target's minute", func() {
		b.limit(b.east, 0, 100)
		b.east.server.Enqueue(providertest.Stream(providertest.ChatSSE(providertest.Turn{Text: []string{"big"},
			Usage: providertest.Usage{Input: 150, Output: 10}})))
		Expect(b.call("conv-a", "sonnet").text).To(Equal("big"))
		b.west.server.Enqueue(answer("west"))
		res := b.call("conv-b", "sonnet")
		Expect(res.text).To(Equal("west"))
		Expect(b.records(res.callID)[0].Route.Moved).To(ContainSubstring("(160 of 100 tokens)"))
	})

	It("fails a call as rate-limited, with the wait until the next minute, when no target has room", func() {
		b.limit(b.east, 1, 0)
		b.east.server.Enqueue(answer("east"))
		Expect(b.call("conv-a", b.east.model).err).NotTo(HaveOccurred())
		res := b.call("conv-b", b.east.model)
		var perr *llm.ProviderError
		Expect(errors.As(res.err, &perr)).To(BeTrue())
		Expect(perr.Class).To(Equal(llm.ErrorRateLimit))
		Expect(perr.RetryAfter).To(BeNumerically(">", 0))
		Expect(perr.RetryAfter).To(BeNumerically("<=", time.Minute))
		Expect(b.east.server.Requests()).To(HaveLen(1))
	})
})

var _ = Describe("Two replicas on one PostgreSQL, with target limits", func() {
	It("share a target's per-minute count: the other replica passes over a target this one filled", func() {
		mine, theirs := openPostgres()
		b := newBench(mine)
		other := b.replica(theirs)
		b.limit(b.east, 2, 0)
		b.east.server.Enqueue(answer("east"), answer("east"))
		Expect(b.call("conv-a", "sonnet").text).To(Equal("east"))
		Expect(b.callWith(other, "conv-b", "sonnet").text).To(Equal("east"))
		b.west.server.Enqueue(answer("west"))
		Expect(b.call("conv-c", "sonnet").text).To(Equal("west"))
		Expect(b.east.server.Requests()).To(HaveLen(2))
	})
})
