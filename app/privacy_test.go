package app_test

import (
	"context"
	"time"

	. "github.com/onsi/ginkgo/v2"
	. "github.com/onsi/gomega"
	"go.opentelemetry.io/otel/sdk/trace/tracetest"
	"go.uber.org/zap"

	"keygate/adapters/relstore"
	"keygate/adapters/tracing"
	"keygate/app"
	"keygate/app/config"
	appcontrol "keygate/app/control"
	"keygate/domain/llm"
	"keygate/domain/prefix"
	"keygate/ports"
)

var _ = Describe("Prompt privacy as the app wires it", func() {
	var (
		store    *relstore.Store
		settings *appcontrol.Settings
		mp       ports.ModelProvider
	)
	BeforeEach(func(ctx SpecContext) {
		dir := app.DataDir(GinkgoT().TempDir())
		log := zap.NewNop()
		var closeStore func()
		var err error
		cfg := config.Config{DataDir: string(dir)}
		store, closeStore, err = app.OpenStore(ctx, cfg, log, dir)
		Expect(err).NotTo(HaveOccurred())
		DeferCleanup(closeStore)
		settings, err = app.LoadSettings(ctx, store, app.NewAuditor(store))
		Expect(err).NotTo(HaveOccurred())
		mp = app.NewModelProvider(app.ModelProviderOptions{Logger: log, Store: store, Settings: settings, Metrics: app.NewMetrics(),
			Tracing: tracing.NewWithProcessor(tracetest.NewSpanRecorder(), "test"), Egress: laptopEgress(ctx, cfg)})
	})
	// call makes a model call to a port nothing listens on: the prompt is
	// kept before the provider is reached.
	call := func(ctx context.Context, id string) {
		st, err := mp.Stream(ctx, ports.ModelCall{CallID: id, RunID: "run", ConversationID: "conv",
			Endpoint: ports.Endpoint{Kind: llm.ProviderOpenAIChat, URL: "http://127.0.0.1:1/v1/chat/completions"},
			Request: llm.Request{Model: "m", Messages: []llm.Message{{ID: "u", Role: llm.RoleUser,
				Parts: []llm.Part{{Kind: llm.PartText, Text: "SECRET-QUESTION"}}}}}})
		if err == nil {
			for st.Next() {
			}
			_ = st.Close()
		}
	}

	It("keeps a call's whole request only while detailed mode is on", func(ctx SpecContext) {
		call(ctx, "plain")
		_, err := settings.Update(ctx, appcontrol.ServiceSettings{Detailed: true})
		Expect(err).NotTo(HaveOccurred())
		call(ctx, "detailed")
		plain, err := store.Prompts().Prompt(ctx, "plain")
		Expect(err).NotTo(HaveOccurred())
		Expect(plain.Request).To(BeNil())
		Expect(plain.Shape).NotTo(BeNil())
		detailed, err := store.Prompts().Prompt(ctx, "detailed")
		Expect(err).NotTo(HaveOccurred())
		Expect(detailed.Request).NotTo(BeNil())
	})

	It("deletes kept prompts past the retention age", func(ctx SpecContext) {
		shape := prefix.ShapeOf(llm.Request{Model: "m"})
		Expect(store.Prompts().PutPrompt(ctx, "old", ports.StoredPrompt{At: time.Now().Add(-48 * time.Hour), Shape: &shape})).To(Succeed())
		Expect(store.Prompts().PutPrompt(ctx, "young", ports.StoredPrompt{At: time.Now(), Shape: &shape})).To(Succeed())
		_, err := settings.Update(ctx, appcontrol.ServiceSettings{RetentionHours: 24})
		Expect(err).NotTo(HaveOccurred())
		Expect(app.NewRetention(store, settings).Sweep(ctx)).To(Equal(1))
		_, err = store.Prompts().Prompt(ctx, "old")
		Expect(err).To(MatchError(ports.ErrNotFound))
		_, err = store.Prompts().Prompt(ctx, "young")
		Expect(err).NotTo(HaveOccurred())
	})
})
