package app_test

import (
	. "github.com/onsi/ginkgo/v2"
	. "github.com/onsi/gomega"
	"go.uber.org/zap"

	"keygate/adapters/pgtest"
	"keygate/app"
	"keygate/app/config"
	appcontrol "keygate/app/control"
	"keygate/domain/llm"
	"keygate/ports"
)

var _ = Describe("Provider keys stored before keys were bound to their endpoint", func() {
	DescribeTable("are bound to their provider's origin when Keygate starts, on either store",
		func(ctx SpecContext, engine string) {
			dir := app.DataDir(GinkgoT().TempDir())
			cfg := config.Config{DataDir: string(dir)}
			if engine == "postgres" {
				db, err := pgtest.New(ctx)
				Expect(err).NotTo(HaveOccurred(), "this spec needs a PostgreSQL server and never skips")
				DeferCleanup(db.Close)
				cfg.DatabaseURL = db.DSN
			}
			log := zap.NewNop()
			store, closeStore, err := app.OpenStore(ctx, cfg, log, dir)
			Expect(err).NotTo(HaveOccurred())
			DeferCleanup(closeStore)
			box, err := app.OpenSecretBox(cfg, dir)
			Expect(err).NotTo(HaveOccurred())

			By("a key sealed the way Keygate sealed keys before: the key alone")
			legacy, err := box.Seal([]byte("sk-legacy-0123456789"))
			Expect(err).NotTo(HaveOccurred())
			configs, providers := store.Stores().ModelConfigs, store.Providers()
			Expect(providers.PutProvider(ctx, ports.Provider{ID: "p-old", Name: "Old", Kind: llm.ProviderOpenAIChat,
				BaseURL: "https://api.example.com/v1", Keys: []ports.ProviderKey{{ID: "k-old", Sealed: legacy, Weight: 1, Enabled: true}}})).To(Succeed())
			Expect(configs.PutModelConfig(ctx, ports.ModelConfig{ID: "old", DisplayName: "Old", ProviderID: "p-old", ModelID: "gpt-a"})).To(Succeed())

			models, err := app.NewModels(ctx, log, store, box, nil, app.NewAuditor(store), laptopEgress(ctx, cfg), app.ReplicaChecked{})
			Expect(err).NotTo(HaveOccurred())

			row, err := providers.Provider(ctx, "p-old")
			Expect(err).NotTo(HaveOccurred())
			plain, err := box.Open(row.Keys[0].Sealed)
			Expect(err).NotTo(HaveOccurred())
			Expect(string(plain)).To(Equal("keygate-bound-key-v1\nhttps://api.example.com\nsk-legacy-0123456789"))
			ep, _, err := models.Endpoint(ctx, "old")
			Expect(err).NotTo(HaveOccurred())
			Expect(ep.APIKey).To(Equal("sk-legacy-0123456789"))

			By("from then on, a row pointed elsewhere behind Keygate's back is refused")
			row.BaseURL = "https://attacker.example/v1"
			Expect(providers.PutProvider(ctx, row)).To(Succeed())
			_, _, err = models.Endpoint(ctx, "old")
			var bound *appcontrol.KeyOriginError
			Expect(err).To(BeAssignableToTypeOf(bound))
			Expect(err.Error()).To(ContainSubstring("saved for https://api.example.com and would be sent to https://attacker.example"))
		},
		Entry("SQLite", "sqlite"),
		Entry("PostgreSQL", "postgres"),
	)
})
