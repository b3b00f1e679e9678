package postgres_test

import (
	"context"
	"fmt"
	"sync"
	"time"

	"github.com/jackc/pgx/v5"

	. "github.com/onsi/ginkgo/v2"
	. "github.com/onsi/gomega"
	"go.uber.org/zap"

	"keygate/adapters/postgres"
	"keygate/domain/conversation"
	"keygate/domain/llm"
	"keygate/ports"
)

var _ = Describe("Two replicas on one PostgreSQL database", func() {
	var replicas [2]ports.Stores

	BeforeEach(func(ctx SpecContext) {
		for i := range replicas {
			db, err := postgres.Open(ctx, dsn, zap.NewNop())
			Expect(err).NotTo(HaveOccurred())
			DeferCleanup(db.Close)
			replicas[i] = postgres.NewStore(db).Stores()
		}
	})

	It("see a model configuration one changed within a second, though each serves it from memory", func(ctx SpecContext) {
		prov := ports.Provider{ID: fmt.Sprintf("p-%d", GinkgoRandomSeed()), Name: "P", Kind: llm.ProviderOpenAIChat,
			BaseURL: "https://api.example/v1"}
		Expect(replicas[0].Providers.PutProvider(ctx, prov)).To(Succeed())
		cfg := ports.ModelConfig{ID: fmt.Sprintf("m-%d", GinkgoRandomSeed()), DisplayName: "first", Enabled: true,
			ProviderID: prov.ID, ModelID: "gpt"}
		Expect(replicas[0].ModelConfigs.PutModelConfig(ctx, cfg)).To(Succeed())
		name := func() string {
			got, err := replicas[1].ModelConfigs.ModelConfig(ctx, cfg.ID)
			Expect(err).NotTo(HaveOccurred())
			return got.DisplayName
		}

		By("a change no replica hears (triggers off for the session) is not seen: the second serves from memory")
		raw, err := pgx.Connect(ctx, dsn)
		Expect(err).NotTo(HaveOccurred())
		DeferCleanup(func() { _ = raw.Close(context.Background()) })
		_, err = raw.Exec(ctx, "SET session_replication_role = replica")
		Expect(err).NotTo(HaveOccurred())
		Eventually(func() string {
			_, err := raw.Exec(ctx, "UPDATE model_configs SET display_name = 'first' WHERE id = $1", cfg.ID)
			Expect(err).NotTo(HaveOccurred())
			name() // fills the memory once the replica listens
			_, err = raw.Exec(ctx, "UPDATE model_configs SET display_name = 'unheard' WHERE id = $1", cfg.ID)
			Expect(err).NotTo(HaveOccurred())
			return name()
		}).WithTimeout(5 * time.Second).Should(Equal("first"))

		By("a change through the first replica reaches the second within a second")
		cfg.DisplayName = "second"
		Expect(replicas[0].ModelConfigs.PutModelConfig(ctx, cfg)).To(Succeed())
		Eventually(name).WithTimeout(time.Second).WithPolling(10 * time.Millisecond).Should(Equal("second"))

		By("and so does its provider's")
		prov.BaseURL = "https://api2.example/v1"
		Expect(replicas[0].Providers.PutProvider(ctx, prov)).To(Succeed())
		Eventually(func() string {
			got, err := replicas[1].ModelConfigs.ModelConfig(ctx, cfg.ID)
			Expect(err).NotTo(HaveOccurred())
			return got.BaseURL
		}).WithTimeout(time.Second).WithPolling(10 * time.Millisecond).Should(Equal(prov.BaseURL))

		By("and a key the first disables")
		prov.Keys = []ports.ProviderKey{{ID: fmt.Sprintf("k-%d", GinkgoRandomSeed()), Sealed: []byte{1}, Weight: 1, Enabled: true}}
		Expect(replicas[0].Providers.PutProvider(ctx, prov)).To(Succeed())
		enabled := func() bool {
			got, err := replicas[1].Providers.Provider(ctx, prov.ID)
			Expect(err).NotTo(HaveOccurred())
			return len(got.Keys) == 1 && got.Keys[0].Enabled
		}
		Eventually(enabled).WithTimeout(time.Second).WithPolling(10 * time.Millisecond).Should(BeTrue())
		Expect(replicas[0].Providers.SetKeyEnabled(ctx, prov.ID, prov.Keys[0].ID, false, "revoked")).To(Succeed())
		Eventually(enabled).WithTimeout(time.Second).WithPolling(10 * time.Millisecond).Should(BeFalse())
	})

	It("store a turn retried on both once and leave one running run after racing claims", func(ctx SpecContext) {
		conv := fmt.Sprintf("replicas-%d", GinkgoRandomSeed())
		root, err := replicas[0].Conversations.Open(ctx, conv)
		Expect(err).NotTo(HaveOccurred())
		msg, err := conversation.NewText("u1", llm.RoleUser, conversation.OriginRuntime, "hello")
		Expect(err).NotTo(HaveOccurred())

		var wg sync.WaitGroup
		ids := make([]string, 8)
		errs := make([]error, 8)
		for i := range ids {
			wg.Add(1)
			go func() {
				defer wg.Done()
				r := replicas[i%2]
				d, err := r.Conversations.Apply(context.Background(), ports.Write{Change: conversation.AppendTo(root, msg)})
				ids[i], errs[i] = d.Checkpoint.ID(), err
				if err == nil {
					_, errs[i] = r.Runs.Claim(context.Background(), ports.RunClaim{RunID: fmt.Sprintf("%s-run-%d", conv, i), ConversationID: conv, Kind: "root"})
				}
			}()
		}
		wg.Wait()
		running := 0
		for i := range ids {
			Expect(errs[i]).NotTo(HaveOccurred())
			Expect(ids[i]).To(Equal(ids[0]))
			run, err := replicas[1].Runs.Run(ctx, fmt.Sprintf("%s-run-%d", conv, i))
			Expect(err).NotTo(HaveOccurred())
			if run.Status == ports.RunRunning {
				running++
			}
		}
		Expect(running).To(Equal(1))
		_, msgs, err := replicas[1].Conversations.Load(ctx, ids[0])
		Expect(err).NotTo(HaveOccurred())
		Expect(msgs).To(HaveLen(1))
	})
})
