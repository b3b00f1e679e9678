package sqlite_test

import (
	"time"

	. "github.com/onsi/ginkgo/v2"
	. "github.com/onsi/gomega"
	"go.uber.org/zap"

	"keygate/adapters/sqlite"
	"keygate/domain/llm"
	"keygate/domain/routing"
	"keygate/ports"
)

var _ = Describe("Upgrading the models an earlier Keygate kept, each with its own URL and key", func() {
	It("makes providers of them without losing a key: rows agreeing on URL, headers and sealed key share one, and a downgrade gives each model its own back", func(ctx SpecContext) {
		dir := GinkgoT().TempDir()
		db, err := sqlite.Open(ctx, dir, zap.NewNop())
		Expect(err).NotTo(HaveOccurred())
		Expect(db.Close()).To(Succeed())

		By("going back to the schema before providers and storing models as it did")
		raw := rawSchemaAt(ctx, db.Path(), 120)
		at := time.Now().UTC().Truncate(time.Millisecond)
		insert := func(id string, order int, kind, base string, full bool, headers string, key []byte) {
			_, err := raw.ExecContext(ctx, `INSERT INTO model_configs (id, sort_order, display_name, group_name, enabled, provider_kind,
				base_url, use_full_url, sealed_api_key, model_id, tooltip, reasoning_effort, context_window_tokens, max_output_tokens,
				extra_params, custom_headers, supports_images, supports_tools, created_at, updated_at)
				VALUES (?, ?, ?, '', TRUE, ?, ?, ?, ?, 'up-' || ?, '', '', 0, 0, 'null', ?, FALSE, TRUE, ?, ?)`,
				id, order, "Model "+id, kind, base, full, key, id, headers, at.UnixMilli(), at.UnixMilli())
			Expect(err).NotTo(HaveOccurred())
		}
		insert("a", 0, "openai_chat", "https://user:pw@api.example.com/v1?x=1", false, "null", []byte("sealed-a"))
		insert("b", 1, "openai_chat", "https://user:pw@api.example.com/v1?x=1", false, "null", []byte("sealed-a"))
		insert("c", 2, "openai_chat", "https://user:pw@api.example.com/v1?x=1", false, "null", []byte("sealed-c"))
		insert("d", 3, "anthropic", "http://127.0.0.1:8000", true, `{"X-Team":"a"}`, []byte{})
		Expect(raw.Close()).To(Succeed())

		By("opening it with this Keygate")
		db, err = sqlite.Open(ctx, dir, zap.NewNop())
		Expect(err).NotTo(HaveOccurred())
		store := sqlite.NewStore(db)
		provs, err := store.Providers().Providers(ctx)
		Expect(err).NotTo(HaveOccurred())
		byID := map[string]ports.Provider{}
		for _, p := range provs {
			byID[p.ID] = p
		}
		Expect(byID).To(HaveLen(3))
		shared := byID["p-a"]
		Expect(shared.Name).To(Equal("api.example.com"))
		Expect(shared.Kind).To(Equal(llm.ProviderOpenAIChat))
		Expect(shared.BaseURL).To(Equal("https://user:pw@api.example.com/v1?x=1"))
		Expect(shared.KeyStrategy).To(Equal(routing.KeysRoundRobin))
		Expect(shared.Keys).To(HaveLen(1))
		Expect(shared.Keys[0].Sealed).To(Equal([]byte("sealed-a")), "the sealed key moved byte for byte")
		Expect(shared.Keys[0].Enabled).To(BeTrue())
		Expect(shared.Keys[0].Weight).To(Equal(1))
		Expect(byID["p-c"].Keys[0].Sealed).To(Equal([]byte("sealed-c")))
		keyless := byID["p-d"]
		Expect(keyless.Keys).To(BeEmpty())
		Expect(keyless.Name).To(Equal("127.0.0.1:8000"))
		Expect(keyless.UseFullURL).To(BeTrue())
		Expect(keyless.ClearHeaders).To(MatchJSON(`{"X-Team":"a"}`))

		models := map[string]string{}
		cfgs, err := store.Stores().ModelConfigs.ModelConfigs(ctx)
		Expect(err).NotTo(HaveOccurred())
		for _, c := range cfgs {
			models[c.ID] = c.ProviderID
			Expect(c.ModelID).To(Equal("up-" + c.ID))
		}
		Expect(models).To(Equal(map[string]string{"a": "p-a", "b": "p-a", "c": "p-c", "d": "p-d"}))
		a, err := store.Stores().ModelConfigs.ModelConfig(ctx, "a")
		Expect(err).NotTo(HaveOccurred())
		Expect(a.BaseURL).To(Equal(shared.BaseURL))
		Expect(db.Close()).To(Succeed())

		By("going back down: each model takes its provider's URL and key again")
		raw = rawSchemaAt(ctx, db.Path(), 120)
		DeferCleanup(raw.Close)
		var base string
		var key []byte
		Expect(raw.QueryRowContext(ctx, "SELECT base_url, sealed_api_key FROM model_configs WHERE id = 'b'").Scan(&base, &key)).To(Succeed())
		Expect(base).To(Equal("https://user:pw@api.example.com/v1?x=1"))
		Expect(key).To(Equal([]byte("sealed-a")))
	})
})
