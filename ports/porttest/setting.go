package porttest

import (
	"context"
	"encoding/json"
	"time"

	. "github.com/onsi/ginkgo/v2"
	. "github.com/onsi/gomega"

	"keygate/domain/llm"
	"keygate/domain/routing"
	"keygate/ports"
)

func describeSettings(open Factory) {
	Describe("SettingStore", func() {
		var (
			ss   ports.SettingStore
			ctx  context.Context
			name string
		)
		BeforeEach(func() {
			ss, ctx, name = open().Stores.Settings, context.Background(), uniq("setting")
		})

		It("stores, replaces and deletes a JSON value", func() {
			Expect(ss.PutSetting(ctx, name, json.RawMessage(`{"detailed":false}`))).To(Succeed())
			Expect(ss.PutSetting(ctx, name, json.RawMessage(`{"detailed":true}`))).To(Succeed())
			v, err := ss.Setting(ctx, name)
			Expect(err).NotTo(HaveOccurred())
			Expect(v).To(MatchJSON(`{"detailed":true}`))
			Expect(ss.DeleteSetting(ctx, name)).To(Succeed())
			_, err = ss.Setting(ctx, name)
			Expect(err).To(MatchError(ports.ErrNotFound))
			Expect(ss.DeleteSetting(ctx, name)).To(MatchError(ports.ErrNotFound))
		})

		It("rejects a value that is not JSON with ErrInvalidSetting", func() {
			Expect(ss.PutSetting(ctx, name, json.RawMessage(`{nope`))).To(MatchError(ports.ErrInvalidSetting))
		})
	})
}

func describeModelConfigs(open Factory) {
	Describe("ModelConfigStore", func() {
		var (
			ms   ports.ModelConfigStore
			ps   ports.ProviderStore
			ctx  context.Context
			cfg  ports.ModelConfig
			prov ports.Provider
		)
		BeforeEach(func() {
			h := open()
			ms, ps, ctx = h.Stores.ModelConfigs, h.Stores.Providers, context.Background()
			prov = ports.Provider{ID: uniq("provider"), Name: "Example", Kind: llm.ProviderOpenAIResponses,
				BaseURL: "https://api.example/v1", UseFullURL: true, ClearHeaders: json.RawMessage(`{"X-Team":"a"}`),
				SealedHeaders: []byte{9, 8, 7},
				KeyStrategy:   routing.KeysRoundRobin}
			Expect(ps.PutProvider(ctx, prov)).To(Succeed())
			cfg = ports.ModelConfig{
				ID: uniq("model"), SortOrder: 2, DisplayName: "GPT", Enabled: true, ProviderID: prov.ID,
				ModelID: "gpt-5.1", ReasoningEffort: "high",
				ContextWindowTokens: 400_000, ExtraParams: json.RawMessage(`{"store":false}`),
				SupportsTools: true, RequestsPerMinute: 60, TokensPerMinute: 100_000,
			}
		})

		It("stores a configuration and keeps CreatedAt on replace", func() {
			Expect(ms.PutModelConfig(ctx, cfg)).To(Succeed())
			first, err := ms.ModelConfig(ctx, cfg.ID)
			Expect(err).NotTo(HaveOccurred())
			Expect(first.ExtraParams).To(MatchJSON(`{"store":false}`))
			Expect(first.RequestsPerMinute).To(Equal(int64(60)))
			Expect(first.TokensPerMinute).To(Equal(int64(100_000)))
			Expect(first.CreatedAt).To(BeTemporally("~", time.Now(), time.Minute))
			cfg.DisplayName = "GPT renamed"
			Expect(ms.PutModelConfig(ctx, cfg)).To(Succeed())
			second, err := ms.ModelConfig(ctx, cfg.ID)
			Expect(err).NotTo(HaveOccurred())
			Expect(second.DisplayName).To(Equal("GPT renamed"))
			Expect(second.CreatedAt).To(Equal(first.CreatedAt))
		})

		It("reads a configuration joined with its provider's connection, and never writes the provider's fields", func() {
			cfg.BaseURL, cfg.ProviderKind = "https://elsewhere.example", llm.ProviderAnthropic
			Expect(ms.PutModelConfig(ctx, cfg)).To(Succeed())
			got, err := ms.ModelConfig(ctx, cfg.ID)
			Expect(err).NotTo(HaveOccurred())
			Expect(got.ProviderID).To(Equal(prov.ID))
			Expect(got.ProviderKind).To(Equal(llm.ProviderOpenAIResponses))
			Expect(got.BaseURL).To(Equal("https://api.example/v1"))
			Expect(got.UseFullURL).To(BeTrue())
			Expect(got.CustomHeaders).To(MatchJSON(`{"X-Team":"a"}`))
			stored, err := ps.Provider(ctx, prov.ID)
			Expect(err).NotTo(HaveOccurred())
			Expect(stored.SealedHeaders).To(Equal([]byte{9, 8, 7}), "the sealed headers are stored byte for byte")

			By("a provider edit shows in every model that names it")
			prov.BaseURL = "https://api2.example/v1"
			Expect(ps.PutProvider(ctx, prov)).To(Succeed())
			all, err := ms.ModelConfigs(ctx)
			Expect(err).NotTo(HaveOccurred())
			for _, c := range all {
				if c.ID == cfg.ID {
					Expect(c.BaseURL).To(Equal("https://api2.example/v1"))
				}
			}

			By("a model naming no stored provider reads with an empty connection")
			cfg.ID, cfg.ProviderID = uniq("model"), uniq("missing")
			Expect(ms.PutModelConfig(ctx, cfg)).To(Succeed())
			got, err = ms.ModelConfig(ctx, cfg.ID)
			Expect(err).NotTo(HaveOccurred())
			Expect(got.BaseURL).To(BeEmpty())
			Expect(got.CustomHeaders).To(BeNil())
		})

		It("lists configurations by sort order and deletes them", func() {
			early := cfg
			early.ID, early.SortOrder = uniq("model"), -1
			Expect(ms.PutModelConfig(ctx, cfg)).To(Succeed())
			Expect(ms.PutModelConfig(ctx, early)).To(Succeed())
			all, err := ms.ModelConfigs(ctx)
			Expect(err).NotTo(HaveOccurred())
			var ids []string
			for _, c := range all {
				if c.ID == cfg.ID || c.ID == early.ID {
					ids = append(ids, c.ID)
				}
			}
			Expect(ids).To(Equal([]string{early.ID, cfg.ID}))
			Expect(ms.DeleteModelConfig(ctx, cfg.ID)).To(Succeed())
			_, err = ms.ModelConfig(ctx, cfg.ID)
			Expect(err).To(MatchError(ports.ErrNotFound))
			Expect(ms.DeleteModelConfig(ctx, cfg.ID)).To(MatchError(ports.ErrNotFound))
		})
	})
}

func describeProviders(open Factory) {
	Describe("ProviderStore", func() {
		var (
			ps   ports.ProviderStore
			ms   ports.ModelConfigStore
			ctx  context.Context
			prov ports.Provider
		)
		key := func(id string, pos int, sealed byte) ports.ProviderKey {
			return ports.ProviderKey{ID: id, Position: pos, Sealed: []byte{0, sealed, 0xff}, Weight: pos + 1, Enabled: true}
		}
		BeforeEach(func() {
			h := open()
			ps, ms, ctx = h.Stores.Providers, h.Stores.ModelConfigs, context.Background()
			prov = ports.Provider{ID: uniq("provider"), Name: uniq("name"), Kind: llm.ProviderAnthropic,
				BaseURL: "https://api.example", Region: "eu-west", KeyStrategy: routing.KeysWeighted, CoolDown: 90 * time.Second,
				Keys: []ports.ProviderKey{key(uniq("key"), 1, 2), key(uniq("key"), 0, 1)}}
		})

		It("stores a provider with its keys as opaque bytes, keys in position order", func() {
			Expect(ps.PutProvider(ctx, prov)).To(Succeed())
			got, err := ps.Provider(ctx, prov.ID)
			Expect(err).NotTo(HaveOccurred())
			Expect(got.Name).To(Equal(prov.Name))
			Expect(got.Kind).To(Equal(llm.ProviderAnthropic))
			Expect(got.Region).To(Equal("eu-west"))
			Expect(got.KeyStrategy).To(Equal(routing.KeysWeighted))
			Expect(got.CoolDown).To(Equal(90 * time.Second))
			Expect(got.ClearHeaders).To(BeNil())
			Expect(got.SealedHeaders).To(BeNil(), "no sealed headers read back as none")
			Expect(got.CreatedAt).To(BeTemporally("~", time.Now(), time.Minute))
			Expect(got.Keys).To(HaveLen(2))
			Expect(got.Keys[0].ID).To(Equal(prov.Keys[1].ID))
			Expect(got.Keys[0].Sealed).To(Equal([]byte{0, 1, 0xff}))
			Expect(got.Keys[1].Weight).To(Equal(2))
			Expect(got.Keys[1].Enabled).To(BeTrue())
		})

		It("stores a cloud provider's account settings and clears them again", func() {
			cloud := ports.CloudSettings{Region: "eu-central-1", Project: "acme-prod", Source: ports.CredentialWebIdentity,
				Profile: "bedrock", RoleARN: "arn:aws:iam::123456789012:role/keygate", WebIdentityTokenFile: "/var/run/secrets/token"}
			prov.Cloud, prov.Keys = cloud, nil
			Expect(ps.PutProvider(ctx, prov)).To(Succeed())
			got, err := ps.Provider(ctx, prov.ID)
			Expect(err).NotTo(HaveOccurred())
			Expect(got.Cloud).To(Equal(cloud))
			Expect(got.Keys).To(BeEmpty())
			prov.Cloud = ports.CloudSettings{}
			Expect(ps.PutProvider(ctx, prov)).To(Succeed())
			all, err := ps.Providers(ctx)
			Expect(err).NotTo(HaveOccurred())
			for _, p := range all {
				if p.ID == prov.ID {
					Expect(p.Cloud.IsZero()).To(BeTrue())
				}
			}
		})

		It("replaces the key pool as given, keeping the CreatedAt of what it keeps", func() {
			Expect(ps.PutProvider(ctx, prov)).To(Succeed())
			first, err := ps.Provider(ctx, prov.ID)
			Expect(err).NotTo(HaveOccurred())
			kept, added := prov.Keys[0], key(uniq("key"), 5, 9)
			kept.Sealed = []byte("rotated")
			prov.Keys = []ports.ProviderKey{kept, added}
			prov.Name = "Renamed"
			Expect(ps.PutProvider(ctx, prov)).To(Succeed())
			got, err := ps.Provider(ctx, prov.ID)
			Expect(err).NotTo(HaveOccurred())
			Expect(got.Name).To(Equal("Renamed"))
			Expect(got.CreatedAt).To(Equal(first.CreatedAt))
			Expect(got.Keys).To(HaveLen(2))
			Expect(got.Keys[0].ID).To(Equal(kept.ID))
			Expect(got.Keys[0].Sealed).To(Equal([]byte("rotated")))
			Expect(got.Keys[0].CreatedAt).To(Equal(first.Keys[1].CreatedAt))
			Expect(got.Keys[1].ID).To(Equal(added.ID))
		})

		It("refuses a key id another provider holds, changing nothing", func() {
			Expect(ps.PutProvider(ctx, prov)).To(Succeed())
			other := ports.Provider{ID: uniq("provider"), Name: "Other", Kind: llm.ProviderOpenAIChat, BaseURL: "https://o.example",
				Keys: []ports.ProviderKey{prov.Keys[0]}}
			Expect(ps.PutProvider(ctx, other)).To(MatchError(ports.ErrConflict))
			_, err := ps.Provider(ctx, other.ID)
			Expect(err).To(MatchError(ports.ErrNotFound))
		})

		It("enables and disables one key with a reason", func() {
			Expect(ps.PutProvider(ctx, prov)).To(Succeed())
			Expect(ps.SetKeyEnabled(ctx, prov.ID, prov.Keys[0].ID, false, "kept failing authentication")).To(Succeed())
			got, err := ps.Provider(ctx, prov.ID)
			Expect(err).NotTo(HaveOccurred())
			Expect(got.Keys[1].Enabled).To(BeFalse())
			Expect(got.Keys[1].DisabledReason).To(Equal("kept failing authentication"))
			Expect(got.Keys[0].Enabled).To(BeTrue())
			Expect(ps.SetKeyEnabled(ctx, prov.ID, "no-such-key", true, "")).To(MatchError(ports.ErrNotFound))
			Expect(ps.SetKeyEnabled(ctx, uniq("provider"), prov.Keys[0].ID, true, "")).To(MatchError(ports.ErrNotFound))
		})

		It("lists providers by name with their keys", func() {
			Expect(ps.PutProvider(ctx, prov)).To(Succeed())
			second := ports.Provider{ID: uniq("provider"), Name: prov.Name + "-b", Kind: llm.ProviderOpenAIChat, BaseURL: "https://b.example"}
			Expect(ps.PutProvider(ctx, second)).To(Succeed())
			all, err := ps.Providers(ctx)
			Expect(err).NotTo(HaveOccurred())
			var mine []ports.Provider
			for _, p := range all {
				if p.ID == prov.ID || p.ID == second.ID {
					mine = append(mine, p)
				}
			}
			Expect(mine).To(HaveLen(2))
			Expect(mine[0].ID).To(Equal(prov.ID))
			Expect(mine[0].Keys).To(HaveLen(2))
			Expect(mine[1].Keys).To(BeEmpty())
		})

		It("refuses to delete a provider a model uses, then deletes it with its keys", func() {
			Expect(ps.PutProvider(ctx, prov)).To(Succeed())
			model := ports.ModelConfig{ID: uniq("model"), DisplayName: "M", ProviderID: prov.ID, ModelID: "m"}
			Expect(ms.PutModelConfig(ctx, model)).To(Succeed())
			Expect(ps.DeleteProvider(ctx, prov.ID)).To(MatchError(ports.ErrConflict))
			_, err := ps.Provider(ctx, prov.ID)
			Expect(err).NotTo(HaveOccurred())
			Expect(ms.DeleteModelConfig(ctx, model.ID)).To(Succeed())
			Expect(ps.DeleteProvider(ctx, prov.ID)).To(Succeed())
			_, err = ps.Provider(ctx, prov.ID)
			Expect(err).To(MatchError(ports.ErrNotFound))
			Expect(ps.DeleteProvider(ctx, prov.ID)).To(MatchError(ports.ErrNotFound))

			By("its key ids are free again")
			again := ports.Provider{ID: uniq("provider"), Name: "Again", Kind: llm.ProviderOpenAIChat, BaseURL: "https://a.example",
				Keys: prov.Keys}
			Expect(ps.PutProvider(ctx, again)).To(Succeed())
		})

		It("writes nothing on a cancelled context", func() {
			Expect(ps.PutProvider(cancelled(ctx), prov)).NotTo(Succeed())
			_, err := ps.Provider(ctx, prov.ID)
			Expect(err).To(MatchError(ports.ErrNotFound))
		})
	})
}
