package company_test

import (
	"context"
	"encoding/json"

	. "github.com/onsi/ginkgo/v2"
	. "github.com/onsi/gomega"
	"go.uber.org/zap"

	"keygate/adapters/sqlite"
	"keygate/app/company"
	"keygate/app/run/runtest"
	"keygate/domain/access"
	"keygate/domain/identity"
	"keygate/domain/llm"
	"keygate/ports"
)

var _ = Describe("Auditor store decorators", func() {
	var (
		ctx       context.Context
		log       ports.AuditLog
		models    ports.ModelConfigStore
		providers ports.ProviderStore
		settings  ports.SettingStore
		admin     = access.Principal{Identity: identity.Identity{UserID: "root"}, Role: access.Admin}
	)
	BeforeEach(func() {
		ctx = access.NewContext(context.Background(), admin)
		db, err := sqlite.Open(ctx, GinkgoT().TempDir(), zap.NewNop())
		Expect(err).NotTo(HaveOccurred())
		DeferCleanup(db.Close)
		st := sqlite.NewStore(db)
		log = st.Audit()
		auditor := company.NewAuditor(log, runtest.NewClock())
		models = auditor.ModelConfigs(st.Stores().ModelConfigs)
		providers = auditor.Providers(st.Providers())
		settings = auditor.Settings(st.Stores().Settings)
	})
	entries := func() []string {
		list, err := log.AuditEntries(context.Background(), ports.AuditQuery{})
		Expect(err).NotTo(HaveOccurred())
		var out []string
		for _, e := range list {
			out = append(out, e.Actor.UserID+" "+e.Action+" "+e.Target)
		}
		return out
	}

	It("audits who created, changed and deleted a model, newest first", func() {
		cfg := ports.ModelConfig{ID: "m1", DisplayName: "GPT", ProviderID: "p1", ModelID: "gpt-a"}
		Expect(models.PutModelConfig(ctx, cfg)).To(Succeed())
		cfg.ModelID = "gpt-b"
		Expect(models.PutModelConfig(ctx, cfg)).To(Succeed())
		Expect(models.DeleteModelConfig(ctx, "m1")).To(Succeed())
		Expect(entries()).To(Equal([]string{"root model.delete m1", "root model.put m1", "root model.put m1"}))

		list, _ := log.AuditEntries(context.Background(), ports.AuditQuery{})
		Expect(list[2].Before).To(BeNil(), "the first put created the model")
		var before, change map[string]any
		Expect(json.Unmarshal(list[1].Before, &before)).To(Succeed())
		Expect(json.Unmarshal(list[1].After, &change)).To(Succeed())
		Expect(before).To(HaveKeyWithValue("modelId", "gpt-a"))
		Expect(change).To(HaveKeyWithValue("modelId", "gpt-b"))
		Expect(change).To(HaveKeyWithValue("displayName", "GPT"))
		Expect(list[0].After).To(BeNil())
	})

	It("audits who changed a provider's keys, the router disabling one included, with every key masked", func() {
		p := ports.Provider{ID: "p1", Name: "OpenAI", Kind: llm.ProviderOpenAIResponses, BaseURL: "https://api.example",
			Keys: []ports.ProviderKey{{ID: "k1", Sealed: []byte("sealed-1"), Weight: 1, Enabled: true}}}
		Expect(providers.PutProvider(ctx, p)).To(Succeed())
		p.Keys[0].Sealed = []byte("sealed-2")
		Expect(providers.PutProvider(ctx, p)).To(Succeed())
		Expect(providers.SetKeyEnabled(context.Background(), "p1", "k1", false, "kept failing authentication")).To(Succeed())
		Expect(providers.DeleteProvider(ctx, "p1")).To(Succeed())
		Expect(entries()).To(Equal([]string{"root provider.delete p1", "system provider.key_enabled p1/k1",
			"root provider.put p1", "root provider.put p1"}))

		list, _ := log.AuditEntries(context.Background(), ports.AuditQuery{})
		var rotated, disabled map[string]any
		Expect(json.Unmarshal(list[2].After, &rotated)).To(Succeed())
		Expect(rotated["keys"]).To(ConsistOf(HaveKeyWithValue("apiKey", "[changed]")))
		Expect(json.Unmarshal(list[1].After, &disabled)).To(Succeed())
		Expect(disabled["keys"]).To(ConsistOf(And(HaveKeyWithValue("enabled", false),
			HaveKeyWithValue("disabledReason", "kept failing authentication"))))
		for _, e := range list {
			Expect(string(e.Before) + string(e.After)).NotTo(ContainSubstring("sealed-"))
		}
	})

	It("audits nothing for a change that failed", func() {
		Expect(models.DeleteModelConfig(ctx, "missing")).To(MatchError(ports.ErrNotFound))
		Expect(entries()).To(BeEmpty())
	})

	It("audits settings and names a change without a signed-in user as system", func() {
		Expect(settings.PutSetting(ctx, "llm_detailed_logging", json.RawMessage(`true`))).To(Succeed())
		Expect(settings.PutSetting(context.Background(), "llm_detailed_logging", json.RawMessage(`false`))).To(Succeed())
		Expect(entries()).To(Equal([]string{"system setting.put llm_detailed_logging", "root setting.put llm_detailed_logging"}))
	})
})
