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

var _ = Describe("Auditor", func() {
	var (
		ctx     context.Context
		auditor *company.Auditor
		admin   = access.Principal{Identity: identity.Identity{UserID: "root", Name: "root@corp"}, Role: access.Admin}
		member  = access.Principal{Identity: identity.Identity{UserID: "ada"}, Role: access.Member}
	)
	BeforeEach(func() {
		ctx = context.Background()
		db, err := sqlite.Open(ctx, GinkgoT().TempDir(), zap.NewNop())
		Expect(err).NotTo(HaveOccurred())
		DeferCleanup(db.Close)
		auditor = company.NewAuditor(sqlite.NewStore(db).Audit(), runtest.NewClock())
	})

	It("records who changed a provider, with the keys and auth headers masked", func() {
		before := ports.Provider{ID: "p1", Name: "GPT", Kind: llm.ProviderOpenAIResponses,
			Keys:         []ports.ProviderKey{{ID: "k1", Sealed: []byte("sealed-old"), Weight: 1, Enabled: true}},
			ClearHeaders: json.RawMessage(`{"Authorization":"Bearer abc"}`), SealedHeaders: []byte("sealed-headers")}
		after := before
		after.Name, after.Keys = "GPT 5", []ports.ProviderKey{{ID: "k1", Sealed: []byte("sealed-new"), Weight: 1, Enabled: true}}
		Expect(auditor.Record(ctx, admin, "provider.update", "p1", before, after)).To(Succeed())

		got, err := auditor.Entries(ctx, admin, ports.AuditQuery{})
		Expect(err).NotTo(HaveOccurred())
		Expect(got).To(HaveLen(1))
		Expect(got[0].Actor).To(Equal(admin.Identity))
		Expect(got[0].Role).To(Equal("admin"))
		Expect(got[0].Action).To(Equal("provider.update"))
		var b, a map[string]any
		Expect(json.Unmarshal(got[0].Before, &b)).To(Succeed())
		Expect(json.Unmarshal(got[0].After, &a)).To(Succeed())
		Expect(a).To(HaveKeyWithValue("name", "GPT 5"))
		Expect(a).To(HaveKeyWithValue("providerKind", "openai_responses"))
		Expect(a["keys"]).To(ConsistOf(HaveKeyWithValue("apiKey", "[changed]")))
		Expect(b["keys"]).To(ConsistOf(HaveKeyWithValue("apiKey", "[set]")))
		Expect(a).To(HaveKeyWithValue("clearHeadersSecret", "[set]"))
		Expect(a).To(HaveKeyWithValue("headersSecret", "[set]"))
		Expect(string(got[0].Before) + string(got[0].After)).NotTo(ContainSubstring("Bearer abc"))
	})

	It("names a model configuration's fields as the control API's JSON does", func() {
		cfg := ports.ModelConfig{ID: "m1", DisplayName: "GPT", ProviderID: "p1", ProviderKind: llm.ProviderOpenAIChat, BaseURL: "https://api.example",
			ModelID: "gpt-x", MaxOutputTokens: 4096, ExtraParams: json.RawMessage(`{"api_key":"inner"}`)}
		Expect(auditor.Record(ctx, admin, "model.put", "m1", nil, cfg)).To(Succeed())
		got, _ := auditor.Entries(ctx, admin, ports.AuditQuery{})
		var a map[string]any
		Expect(json.Unmarshal(got[0].After, &a)).To(Succeed())
		Expect(a).To(HaveKeyWithValue("id", "m1"))
		Expect(a).To(HaveKeyWithValue("providerId", "p1"))
		Expect(a).NotTo(HaveKey("baseUrl"), "the connection is the provider's, audited with it")
		Expect(a).To(HaveKeyWithValue("modelId", "gpt-x"))
		Expect(a).To(HaveKeyWithValue("maxOutputTokens", BeNumerically("==", 4096)))
		Expect(a["extraParams"]).To(HaveKeyWithValue("api_key", "[set]"), "a secret inside extra params is masked too")
		for k := range a {
			Expect(k).To(MatchRegexp(`^[a-z][a-zA-Z]*$`), "lowerCamel, never a Go field name")
		}
		Expect(string(got[0].After)).NotTo(ContainSubstring("sealed"))
	})

	It("records a deletion with no after document", func() {
		Expect(auditor.Record(ctx, admin, "token.revoke", "tok_1", map[string]string{"name": "ci"}, nil)).To(Succeed())
		got, _ := auditor.Entries(ctx, admin, ports.AuditQuery{})
		Expect(got[0].After).To(BeNil())
	})

	It("shows the log only to administrators", func() {
		_, err := auditor.Entries(ctx, member, ports.AuditQuery{})
		Expect(err).To(MatchError(access.ErrDenied))
	})
})
