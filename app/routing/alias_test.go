package routing_test

import (
	"context"
	"errors"
	"net/http"

	. "github.com/onsi/ginkgo/v2"
	. "github.com/onsi/gomega"

	"keygate/adapters/provider/providertest"
	"keygate/domain/llm"
	domainrouting "keygate/domain/routing"
	"keygate/ports"
)

var _ = Describe("An alias over two deployments", func() {
	var b *bench
	BeforeEach(func() { b = newBench(openSQLite()) })
	// eastTakes scripts east's reply whatever key the conversation uses.
	eastTakes := func(r providertest.Reply) { b.east.server.Enqueue(r) }
	westTakes := func(r providertest.Reply) { b.west.server.Enqueue(r) }
	sticky := func(conv string) string {
		GinkgoHelper()
		id, err := b.store.Routing().Affinity(context.Background(), conv, "sonnet")
		if errors.Is(err, ports.ErrNotFound) {
			return ""
		}
		Expect(err).NotTo(HaveOccurred())
		return id
	}

	It("serves a call the first deployment answers 5xx on the next one at once, rests the failed one and says why it moved", func() {
		eastTakes(providertest.Status(http.StatusServiceUnavailable, `{"error":{"message":"overloaded"}}`))
		westTakes(answer("from the west"))
		res := b.call("conv-5xx", "sonnet")
		Expect(res.err).NotTo(HaveOccurred())
		Expect(res.text).To(Equal("from the west"))
		recs := b.records(res.callID)
		Expect(recs).To(HaveLen(2))
		Expect(recs[0].Route.Target).To(Equal(b.east.model))
		Expect(recs[0].HTTPStatus).To(Equal(503))
		Expect(recs[1].Route.Target).To(Equal(b.west.model))
		Expect(recs[1].Route.Moved).To(HavePrefix("failover: target " + b.east.model + " failed before the first token (HTTP 503"))
		Expect(recs[1].Model.ModelID).To(Equal("sonnet-west"), "each target is asked for its own upstream model")
		Expect(b.health(domainrouting.TargetSubject(b.east.model)).Cooling(b.clock.Now())).To(BeTrue())
		Expect(sticky("conv-5xx")).To(Equal(b.west.model))
	})

	It("moves a call whose every key of the first deployment answers 429 to the next deployment", func() {
		for _, k := range b.east.keys {
			b.east.server.EnqueueFor(k, providertest.RateLimited(30_000_000_000))
		}
		westTakes(answer("west"))
		res := b.call("conv-429s", "sonnet")
		Expect(res.text).To(Equal("west"))
		Expect(b.east.server.Requests()).To(HaveLen(2), "both keys were tried")
		Expect(b.records(res.callID)).To(HaveLen(3))
	})

	It("moves a call whose first deployment sends no first token in time, and rests it", func() {
		eastTakes(providertest.Reply{Steps: []providertest.Step{{Stall: true}}})
		DeferCleanup(b.east.server.Release)
		westTakes(answer("west was quick"))
		done := make(chan result, 1)
		go func() {
			defer GinkgoRecover()
			done <- b.call("conv-slow", "sonnet")
		}()
		Eventually(b.east.server.Requests).Should(HaveLen(1))
		Eventually(b.clock.Waiters).Should(Equal(1), "the router waits for the first token")
		b.clock.Advance(firstTokenTimeout)
		var res result
		Eventually(done).Should(Receive(&res))
		Expect(res.err).NotTo(HaveOccurred())
		Expect(res.text).To(Equal("west was quick"))
		Expect(b.health(domainrouting.TargetSubject(b.east.model)).LastError).To(ContainSubstring("no first token within"))
	})

	It("keeps a conversation on its target across turns and moves it only on failure", func() {
		conv := "conv-sticky"
		for range 3 {
			eastTakes(answer("east"))
			Expect(b.call(conv, "sonnet").text).To(Equal("east"))
		}
		Expect(b.west.server.Requests()).To(BeEmpty())

		By("a failure moving it to the west")
		eastTakes(providertest.Status(http.StatusBadGateway, `{"error":{"message":"bad gateway"}}`))
		westTakes(answer("west"))
		Expect(b.call(conv, "sonnet").text).To(Equal("west"))
		Expect(sticky(conv)).To(Equal(b.west.model))

		By("staying in the west, where its cache is now warm, after the east recovered")
		b.clock.Advance(5 * 60 * 1_000_000_000)
		for range 2 {
			westTakes(answer("west again"))
			res := b.call(conv, "sonnet")
			Expect(res.text).To(Equal("west again"))
			Expect(b.records(res.callID)[0].Route.Moved).To(BeEmpty())
		}
		Expect(b.east.server.Requests()).To(HaveLen(4))

		By("a new conversation starting on the first target again")
		eastTakes(answer("east for the new one"))
		Expect(b.call("conv-fresh", "sonnet").text).To(Equal("east for the new one"))
	})

	It("never moves a call after its first output reached the engine: a broken stream is the engine's to judge", func() {
		steps := providertest.Events(providertest.ChatSSE(providertest.Turn{Text: providertest.Words("half an answer")}))
		eastTakes(providertest.Reply{Steps: append(steps[:2:2], providertest.Step{Disconnect: true})})
		res := b.call("conv-broken", "sonnet")
		Expect(res.err).To(HaveOccurred())
		Expect(res.text).NotTo(BeEmpty(), "output had reached the engine")
		var perr *llm.ProviderError
		Expect(errors.As(res.err, &perr)).To(BeTrue())
		Expect(b.west.server.Requests()).To(BeEmpty(), "nothing was retried elsewhere")
		Expect(b.records(res.callID)).To(HaveLen(1))
		Expect(b.health(domainrouting.TargetSubject(b.east.model)).Cooling(b.clock.Now())).To(BeFalse(),
			"the target is not rested, so the engine's own retry stays on it")
		Expect(sticky("conv-broken")).To(Equal(b.east.model))
	})

	It("moves a conversation off a drained target on its next turn, saying so, and sends the drained one nothing", func() {
		conv := "conv-drain"
		eastTakes(answer("east"))
		Expect(b.call(conv, "sonnet").text).To(Equal("east"))
		_, err := b.aliases.DrainTarget(context.Background(), "sonnet", b.east.model, true)
		Expect(err).NotTo(HaveOccurred())
		westTakes(answer("west"))
		res := b.call(conv, "sonnet")
		Expect(res.text).To(Equal("west"))
		Expect(b.records(res.callID)[0].Route.Moved).To(Equal("an administrator drained the conversation's target " + b.east.model))
		Expect(b.east.server.Requests()).To(HaveLen(1))
	})

	It("fails a call no target can serve as its last attempt failed, so the engine's retries apply", func() {
		eastTakes(providertest.Status(http.StatusServiceUnavailable, `{"error":{"message":"down"}}`))
		westTakes(providertest.Status(http.StatusInternalServerError, `{"error":{"message":"down too"}}`))
		res := b.call("conv-down", "sonnet")
		var perr *llm.ProviderError
		Expect(errors.As(res.err, &perr)).To(BeTrue())
		Expect(perr.Class).To(Equal(llm.ErrorTransient))
		Expect(perr.Status).To(Equal(500))
	})

	It("moves nothing on a bad request, which every target would refuse", func() {
		eastTakes(providertest.Status(http.StatusBadRequest, `{"error":{"message":"messages: too many"}}`))
		res := b.call("conv-400", "sonnet")
		Expect(res.err).To(HaveOccurred())
		Expect(b.west.server.Requests()).To(BeEmpty())
	})
})
