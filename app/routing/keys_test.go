package routing_test

import (
	"context"
	"encoding/json"
	"time"

	. "github.com/onsi/ginkgo/v2"
	. "github.com/onsi/gomega"

	"keygate/adapters/provider/providertest"
	"keygate/domain/llm"
	domainrouting "keygate/domain/routing"
	"keygate/ports"
)

var _ = Describe("A provider's key pool", func() {
	var b *bench
	BeforeEach(func() { b = newBench(openSQLite()) })
	one, two := func() string { return b.east.keys[0] }, func() string { return b.east.keys[1] }

	It("serves a call whose key answers 429 with the next key at once, and rests the refused key for the provider's Retry-After", func() {
		conv := "conv-429"
		b.east.server.Enqueue(answer("first"))
		first := b.call(conv, b.east.model)
		Expect(first.err).NotTo(HaveOccurred())
		// The conversation's key (chosen by the conversation, so that it
		// keeps to one key's prompt cache) takes the call.
		served := keysSent(b.east)[0]
		other := map[string]string{one(): two(), two(): one()}[served]

		b.east.server.EnqueueFor(served, providertest.RateLimited(20*time.Second))
		b.east.server.EnqueueFor(other, answer("on the other key"))
		res := b.call(conv, b.east.model)
		Expect(res.err).NotTo(HaveOccurred())
		Expect(res.text).To(Equal("on the other key"))
		Expect(keysSent(b.east)[1:]).To(Equal([]string{served, other}))

		recs := b.records(res.callID)
		Expect(recs).To(HaveLen(2), "each attempt has a call record of its own")
		Expect(recs[0].HTTPStatus).To(Equal(429))
		Expect(recs[1].Route.Attempt).To(Equal(1))
		Expect(recs[1].Route.Target).To(Equal(b.east.model))
		Expect(recs[1].Route.Moved).To(BeEmpty(), "another key of the same target is no move")

		refused := b.keyID(b.east, served)
		h := b.health(domainrouting.KeySubject(refused))
		Expect(h.CoolUntil).To(Equal(b.clock.Now().Add(20 * time.Second)))
		Expect(h.LastError).To(ContainSubstring("HTTP 429"))

		By("the resting key gets no call while the other one serves")
		b.east.server.EnqueueFor(other, answer("still the other key"))
		Expect(b.call(conv, b.east.model).text).To(Equal("still the other key"))
		Expect(keysSent(b.east)[3:]).To(Equal([]string{other}))

		By("once rested, the conversation's key serves again and its failures are forgotten")
		b.clock.Advance(21 * time.Second)
		b.east.server.EnqueueFor(served, answer("back"))
		Expect(b.call(conv, b.east.model).text).To(Equal("back"))
		Expect(b.health(domainrouting.KeySubject(refused)).Clean()).To(BeTrue())
	})

	It("rests a key without Retry-After for the provider's configured cool-down", func() {
		p, err := b.store.Providers().Provider(context.Background(), b.east.provider)
		Expect(err).NotTo(HaveOccurred())
		p.CoolDown = 90 * time.Second
		Expect(b.store.Providers().PutProvider(context.Background(), p)).To(Succeed())
		b.east.server.EnqueueFor(one(), providertest.Status(429, `{"error":{"message":"slow down"}}`))
		b.east.server.EnqueueFor(two(), providertest.Status(429, `{"error":{"message":"slow down"}}`))
		res := b.call("conv-cool", b.east.model)
		Expect(res.err).To(HaveOccurred(), "both keys refused: the call fails as its last attempt did")
		var perr *llm.ProviderError
		Expect(res.err).To(BeAssignableToTypeOf(perr))
		for _, id := range b.east.keyIDs {
			Expect(b.health(domainrouting.KeySubject(id)).CoolUntil).To(Equal(b.clock.Now().Add(90 * time.Second)))
		}
	})

	It("takes a key that keeps failing authentication out of the pool, with an audit entry and the reason shown", func() {
		bad := one()
		for i := range domainrouting.DisableAfter {
			b.east.server.EnqueueFor(bad, providertest.Status(401, `{"error":{"message":"Incorrect API key provided"}}`))
			// Each conversation starts on its own key; those that start on
			// the good key never touch the bad one, so try until it did.
			for conv := 0; len(b.keyCalls(b.east, bad)) <= i; conv++ {
				Expect(conv).To(BeNumerically("<", 64))
				b.east.server.EnqueueFor(two(), answer("served"))
				Expect(b.call("conv-auth-"+string(rune('a'+conv))+string(rune('a'+i)), b.east.model).text).To(Equal("served"))
			}
			b.clock.Advance(2 * time.Minute) // past the rest
		}
		p, err := b.store.Providers().Provider(context.Background(), b.east.provider)
		Expect(err).NotTo(HaveOccurred())
		Expect(p.Keys[0].Enabled).To(BeFalse())
		Expect(p.Keys[0].DisabledReason).To(ContainSubstring("3 authentication failures in a row"))
		Expect(p.Keys[1].Enabled).To(BeTrue())
		entries, err := b.audit.AuditEntries(context.Background(), ports.AuditQuery{})
		Expect(err).NotTo(HaveOccurred())
		Expect(entries[0].Action).To(Equal("provider.key_enabled"))
		Expect(entries[0].Actor.UserID).To(Equal("system"))
		Expect(entries[0].Target).To(Equal(b.east.provider + "/" + b.east.keyIDs[0]))
		var after map[string]any
		Expect(json.Unmarshal(entries[0].After, &after)).To(Succeed())
		Expect(string(entries[0].After)).NotTo(ContainSubstring("sk-east"))

		By("a disabled key is never sent again")
		n := len(b.keyCalls(b.east, bad))
		for i := range 4 {
			b.east.server.EnqueueFor(two(), answer("served"))
			Expect(b.call("conv-after-"+string(rune('a'+i)), b.east.model).err).NotTo(HaveOccurred())
		}
		Expect(b.keyCalls(b.east, bad)).To(HaveLen(n))
	})

	It("spreads conversations over the keys and keeps each conversation on its key", func() {
		for i := range 8 {
			conv := "conv-spread-" + string(rune('a'+i))
			for range 2 {
				b.east.server.Enqueue(answer("ok"))
				Expect(b.call(conv, b.east.model).err).NotTo(HaveOccurred())
			}
			sent := keysSent(b.east)
			Expect(sent[len(sent)-1]).To(Equal(sent[len(sent)-2]), "both turns of %s on one key", conv)
		}
		Expect(b.keyCalls(b.east, one())).NotTo(BeEmpty())
		Expect(b.keyCalls(b.east, two())).NotTo(BeEmpty())
	})
})

// keyID is the id of a deployment's key.
func (b *bench) keyID(d *deployment, key string) string {
	for i, k := range d.keys {
		if k == key {
			return d.keyIDs[i]
		}
	}
	Fail("no such key")
	return ""
}

// keyCalls lists the requests a deployment received with key.
func (b *bench) keyCalls(d *deployment, key string) []providertest.Request {
	var out []providertest.Request
	for _, r := range d.server.Requests() {
		if providertest.KeyOf(r.Header) == key {
			out = append(out, r)
		}
	}
	return out
}
