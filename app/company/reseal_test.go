package company_test

import (
	"context"

	. "github.com/onsi/ginkgo/v2"
	. "github.com/onsi/gomega"

	"keygate/adapters/control/controltest"
	"keygate/adapters/secret"
	"keygate/app/company"
	"keygate/domain/llm"
	"keygate/ports"
)

var _ = Describe("Reseal", func() {
	var (
		ctx   context.Context
		store *controltest.Store
		old   []byte
	)
	BeforeEach(func() {
		ctx, store, old = context.Background(), controltest.NewStore(nil), secret.NewKey()
		before, _ := secret.NewRing(old)
		for _, id := range []string{"a", "b"} {
			sealed, _ := before.Seal([]byte("sk-" + id))
			second, _ := before.Seal([]byte("sk-" + id + "2"))
			Expect(store.PutProvider(ctx, ports.Provider{ID: id, Name: id, Kind: llm.ProviderOpenAIResponses,
				Keys: []ports.ProviderKey{{ID: id + "1", Sealed: sealed}, {ID: id + "2", Position: 1, Sealed: second}}})).To(Succeed())
		}
		Expect(store.PutProvider(ctx, ports.Provider{ID: "keyless", Kind: llm.ProviderOpenAIResponses})).To(Succeed())
	})

	It("re-seals every stored key of every provider under the new primary key, so the old key is no longer needed", func() {
		newKey := secret.NewKey()
		ring, _ := secret.NewRing(newKey, old)
		n, err := company.Reseal(ctx, store, ring)
		Expect(err).NotTo(HaveOccurred())
		Expect(n).To(Equal(4))
		only, _ := secret.NewRing(newKey)
		for _, id := range []string{"a", "b"} {
			p, err := store.Provider(ctx, id)
			Expect(err).NotTo(HaveOccurred())
			Expect(only.Open(p.Keys[0].Sealed)).To(Equal([]byte("sk-" + id)))
			Expect(only.Open(p.Keys[1].Sealed)).To(Equal([]byte("sk-" + id + "2")))
		}
		keyless, _ := store.Provider(ctx, "keyless")
		Expect(keyless.Keys).To(BeEmpty())
	})

	It("re-seals a provider's sealed custom headers too, also of a provider without keys", func() {
		before, _ := secret.NewRing(old)
		headers, _ := before.Seal([]byte(`{"X-Org-Token":"org-secret"}`))
		Expect(store.PutProvider(ctx, ports.Provider{ID: "headers", Kind: llm.ProviderOpenAIResponses, SealedHeaders: headers})).To(Succeed())
		newKey := secret.NewKey()
		ring, _ := secret.NewRing(newKey, old)
		_, err := company.Reseal(ctx, store, ring)
		Expect(err).NotTo(HaveOccurred())
		only, _ := secret.NewRing(newKey)
		p, err := store.Provider(ctx, "headers")
		Expect(err).NotTo(HaveOccurred())
		Expect(only.Open(p.SealedHeaders)).To(Equal([]byte(`{"X-Org-Token":"org-secret"}`)))
	})

	It("stops at a key the box cannot open and leaves it as it was", func() {
		stranger, _ := secret.NewRing(secret.NewKey())
		before, _ := store.Provider(ctx, "a")
		_, err := company.Reseal(ctx, store, stranger)
		Expect(err).To(MatchError(ports.ErrUnsealable))
		Expect(err.Error()).NotTo(ContainSubstring("sk-a"))
		after, _ := store.Provider(ctx, "a")
		Expect(after.Keys[0].Sealed).To(Equal(before.Keys[0].Sealed))
	})
})
