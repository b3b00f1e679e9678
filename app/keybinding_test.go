package app_test

import (
	"path/filepath"

	. "github.com/onsi/ginkgo/v2"
	. "github.com/onsi/gomega"
	"go.uber.org/zap"

	"keygate/adapters/pgtest"
	"keygate/adapters/provider"
	"keygate/adapters/relstore"
	"keygate/app"
	"keygate/app/apptest"
	"keygate/app/config"
	appcontrol "keygate/app/control"
	"keygate/domain/llm"
	"keygate/ports"
)

// startedAfter writes, with seed, rows as an earlier Keygate left them in a
// fresh installation on engine ("sqlite" or "postgres"), then starts
// Keygate as keygate serve does (app.Initialize, then Run, whose start
// sequence runs the migrations) and returns the store and the secret box
// to inspect the rows with, and the endpoints a connection test resolves.
func startedAfter(ctx SpecContext, engine string, seed func(*relstore.Store, ports.SecretBox)) (*relstore.Store, ports.SecretBox, *appcontrol.Endpoints) {
	GinkgoHelper()
	cfg := config.Default()
	cfg.DataDir = filepath.Join(GinkgoT().TempDir(), "data")
	cfg.Listen, cfg.LogLevel = "127.0.0.1:0", "error"
	if engine == "postgres" {
		db, err := pgtest.New(ctx)
		Expect(err).NotTo(HaveOccurred(), "this spec needs a PostgreSQL server and never skips")
		DeferCleanup(db.Close)
		cfg.DatabaseURL = db.DSN
	}
	dir, err := app.PrepareDataDir(cfg)
	Expect(err).NotTo(HaveOccurred())
	store, closeStore, err := app.OpenStore(ctx, cfg, zap.NewNop(), dir)
	Expect(err).NotTo(HaveOccurred())
	DeferCleanup(closeStore)
	box, err := app.OpenSecretBox(cfg, dir)
	Expect(err).NotTo(HaveOccurred())
	seed(store, box)

	apptest.Start(cfg)
	return store, box, appcontrol.NewEndpoints(appcontrol.EndpointsOptions{Models: store.Stores().ModelConfigs,
		Providers: store.Providers(), Secrets: box, Protocols: provider.Builtin()})
}

var _ = Describe("Provider keys stored before keys were bound to their endpoint", func() {
	DescribeTable("are bound to their provider's origin when Keygate starts, on either store",
		func(ctx SpecContext, engine string) {
			store, box, endpoints := startedAfter(ctx, engine, func(store *relstore.Store, box ports.SecretBox) {
				By("a key sealed the way Keygate sealed keys before: the key alone")
				legacy, err := box.Seal([]byte("sk-legacy-0123456789"))
				Expect(err).NotTo(HaveOccurred())
				Expect(store.Providers().PutProvider(ctx, ports.Provider{ID: "p-old", Name: "Old", Kind: llm.ProviderOpenAIChat,
					BaseURL: "https://api.example.com/v1", Keys: []ports.ProviderKey{{ID: "k-old", Sealed: legacy, Weight: 1, Enabled: true}}})).To(Succeed())
				Expect(store.Stores().ModelConfigs.PutModelConfig(ctx, ports.ModelConfig{ID: "old", DisplayName: "Old", ProviderID: "p-old", ModelID: "gpt-a"})).To(Succeed())
			})
			providers := store.Providers()

			row, err := providers.Provider(ctx, "p-old")
			Expect(err).NotTo(HaveOccurred())
			plain, err := box.Open(row.Keys[0].Sealed)
			Expect(err).NotTo(HaveOccurred())
			Expect(string(plain)).To(Equal("keygate-bound-key-v1\nhttps://api.example.com\nsk-legacy-0123456789"))
			ep, _, err := endpoints.Endpoint(ctx, "old")
			Expect(err).NotTo(HaveOccurred())
			Expect(ep.APIKey).To(Equal("sk-legacy-0123456789"))

			By("from then on, a row pointed elsewhere behind Keygate's back is refused")
			row.BaseURL = "https://attacker.example/v1"
			Expect(providers.PutProvider(ctx, row)).To(Succeed())
			_, _, err = endpoints.Endpoint(ctx, "old")
			var bound *appcontrol.KeyOriginError
			Expect(err).To(BeAssignableToTypeOf(bound))
			Expect(err.Error()).To(ContainSubstring("saved for https://api.example.com and would be sent to https://attacker.example"))
		},
		Entry("SQLite", "sqlite"),
		Entry("PostgreSQL", "postgres"),
	)
})
