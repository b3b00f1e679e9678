package postgres_test

import (
	"context"
	"fmt"
	"sync"

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
