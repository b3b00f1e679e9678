package app_test

import (
	"encoding/json"

	. "github.com/onsi/ginkgo/v2"
	. "github.com/onsi/gomega"

	"keygate/adapters/relstore"
	appcontrol "keygate/app/control"
	"keygate/domain/llm"
	"keygate/ports"
)

var _ = Describe("Custom headers an earlier Keygate stored in clear", func() {
	DescribeTable("are sealed, bound to their provider's origin, when Keygate starts, leaving no clear value, on either store",
		func(ctx SpecContext, engine string) {
			store, box, endpoints := startedAfter(ctx, engine, func(store *relstore.Store, box ports.SecretBox) {
				By("a provider row as the earlier Keygate left it: the header values in clear")
				key, err := box.Seal([]byte("keygate-bound-key-v1\nhttps://gw.example\nsk-gw-0123456789"))
				Expect(err).NotTo(HaveOccurred())
				Expect(store.Providers().PutProvider(ctx, ports.Provider{ID: "p-gw", Name: "gw", Kind: llm.ProviderOpenAIChat,
					BaseURL: "https://gw.example/v1", ClearHeaders: json.RawMessage(`{"CF-Access-Client-Secret":"cf-secret-0123456789"}`),
					Keys: []ports.ProviderKey{{ID: "k-gw", Sealed: key, Weight: 1, Enabled: true}}})).To(Succeed())
				Expect(store.Stores().ModelConfigs.PutModelConfig(ctx, ports.ModelConfig{ID: "gw", DisplayName: "GW", ProviderID: "p-gw", ModelID: "gpt-a"})).To(Succeed())
			})
			providers := store.Providers()

			row, err := providers.Provider(ctx, "p-gw")
			Expect(err).NotTo(HaveOccurred())
			Expect(row.ClearHeaders).To(BeNil(), "no clear value is left in the table")
			Expect(string(row.SealedHeaders)).NotTo(ContainSubstring("cf-secret"))
			plain, err := box.Open(row.SealedHeaders)
			Expect(err).NotTo(HaveOccurred())
			Expect(string(plain)).To(Equal("keygate-bound-headers-v1\nhttps://gw.example\n" + `{"CF-Access-Client-Secret":"cf-secret-0123456789"}`))
			ep, _, err := endpoints.Endpoint(ctx, "gw")
			Expect(err).NotTo(HaveOccurred())
			Expect(ep.Headers).To(Equal(map[string]string{"CF-Access-Client-Secret": "cf-secret-0123456789"}))

			By("from then on, a row pointed elsewhere behind Keygate's back sends them nowhere")
			row.BaseURL = "https://attacker.example/v1"
			row.Keys[0].Sealed, err = box.Seal([]byte("keygate-bound-key-v1\nhttps://attacker.example\nsk-attacker-0123456789"))
			Expect(err).NotTo(HaveOccurred())
			Expect(providers.PutProvider(ctx, row)).To(Succeed())
			_, _, err = endpoints.Endpoint(ctx, "gw")
			var bound *appcontrol.HeaderOriginError
			Expect(err).To(BeAssignableToTypeOf(bound))
		},
		Entry("SQLite", "sqlite"),
		Entry("PostgreSQL", "postgres"),
	)
})
