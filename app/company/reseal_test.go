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
			Expect(store.PutModelConfig(ctx, ports.ModelConfig{ID: id, ProviderKind: llm.ProviderOpenAIResponses, SealedAPIKey: sealed})).To(Succeed())
		}
		Expect(store.PutModelConfig(ctx, ports.ModelConfig{ID: "keyless", ProviderKind: llm.ProviderOpenAIResponses})).To(Succeed())
	})

	It("re-seals every stored key under the new primary key, so the old key is no longer needed", func() {
		newKey := secret.NewKey()
		ring, _ := secret.NewRing(newKey, old)
		n, err := company.Reseal(ctx, store, ring)
		Expect(err).NotTo(HaveOccurred())
		Expect(n).To(Equal(2))
		only, _ := secret.NewRing(newKey)
		for _, id := range []string{"a", "b"} {
			cfg, err := store.ModelConfig(ctx, id)
			Expect(err).NotTo(HaveOccurred())
			Expect(only.Open(cfg.SealedAPIKey)).To(Equal([]byte("sk-" + id)))
		}
		keyless, _ := store.ModelConfig(ctx, "keyless")
		Expect(keyless.SealedAPIKey).To(BeEmpty())
	})

	It("stops at a key the box cannot open and leaves it as it was", func() {
		stranger, _ := secret.NewRing(secret.NewKey())
		before, _ := store.ModelConfig(ctx, "a")
		_, err := company.Reseal(ctx, store, stranger)
		Expect(err).To(MatchError(ports.ErrUnsealable))
		Expect(err.Error()).NotTo(ContainSubstring("sk-a"))
		after, _ := store.ModelConfig(ctx, "a")
		Expect(after.SealedAPIKey).To(Equal(before.SealedAPIKey))
	})
})
