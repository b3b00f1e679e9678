package routing_test

import (
	"time"

	. "github.com/onsi/ginkgo/v2"
	. "github.com/onsi/gomega"

	"keygate/adapters/provider/providertest"
)

var _ = Describe("Two replicas on one PostgreSQL", func() {
	It("share a key's rest: a key one replica saw refused gets no call from the other", func() {
		mine, theirs := openPostgres()
		b := newBench(mine)
		other := b.replica(theirs)
		conv := "conv-replicas"

		By("replica one serving the conversation on its key")
		b.east.server.Enqueue(answer("first"))
		Expect(b.call(conv, b.east.model).err).NotTo(HaveOccurred())
		served := keysSent(b.east)[0]
		spare := map[string]string{b.east.keys[0]: b.east.keys[1], b.east.keys[1]: b.east.keys[0]}[served]

		By("the key answering 429 to replica one, whose call the spare key serves")
		b.east.server.EnqueueFor(served, providertest.RateLimited(30*time.Second))
		b.east.server.EnqueueFor(spare, answer("spare"))
		Expect(b.call(conv, b.east.model).text).To(Equal("spare"))

		By("replica two sending the next turn to the spare key at once")
		b.east.server.EnqueueFor(spare, answer("spare again"))
		Expect(b.callWith(other, conv, b.east.model).text).To(Equal("spare again"))
		Expect(keysSent(b.east)[1:]).To(Equal([]string{served, spare, spare}))
	})
})
