package porttest

import (
	"context"
	"encoding/json"
	"time"

	. "github.com/onsi/ginkgo/v2"
	. "github.com/onsi/gomega"

	"keygate/domain/llm"
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
			ms  ports.ModelConfigStore
			ctx context.Context
			cfg ports.ModelConfig
		)
		BeforeEach(func() {
			ms, ctx = open().Stores.ModelConfigs, context.Background()
			cfg = ports.ModelConfig{
				ID: uniq("model"), SortOrder: 2, DisplayName: "GPT", Enabled: true,
				ProviderKind: llm.ProviderOpenAIResponses, BaseURL: "https://api.example/v1",
				SealedAPIKey: []byte{0, 1, 2, 0xff}, ModelID: "gpt-5.1", ReasoningEffort: "high",
				ContextWindowTokens: 400_000, ExtraParams: json.RawMessage(`{"store":false}`),
				SupportsTools: true,
			}
		})

		It("stores a configuration with its sealed key as opaque bytes and keeps CreatedAt on replace", func() {
			Expect(ms.PutModelConfig(ctx, cfg)).To(Succeed())
			first, err := ms.ModelConfig(ctx, cfg.ID)
			Expect(err).NotTo(HaveOccurred())
			Expect(first.SealedAPIKey).To(Equal(cfg.SealedAPIKey))
			Expect(first.ExtraParams).To(MatchJSON(`{"store":false}`))
			Expect(first.CustomHeaders).To(BeNil())
			Expect(first.CreatedAt).To(BeTemporally("~", time.Now(), time.Minute))
			cfg.DisplayName = "GPT renamed"
			Expect(ms.PutModelConfig(ctx, cfg)).To(Succeed())
			second, err := ms.ModelConfig(ctx, cfg.ID)
			Expect(err).NotTo(HaveOccurred())
			Expect(second.DisplayName).To(Equal("GPT renamed"))
			Expect(second.CreatedAt).To(Equal(first.CreatedAt))
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
