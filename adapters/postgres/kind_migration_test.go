package postgres_test

import (
	"time"

	. "github.com/onsi/ginkgo/v2"
	. "github.com/onsi/gomega"
	"go.uber.org/zap"

	"keygate/adapters/pgtest"
	"keygate/adapters/postgres"
	"keygate/domain/callrecord"
)

var _ = Describe("Upgrading call records an earlier Keygate stored without a kind", func() {
	It("reads them as Agent calls", func(ctx SpecContext) {
		fresh, err := pgtest.New(ctx)
		Expect(err).NotTo(HaveOccurred())
		DeferCleanup(fresh.Close)
		db, err := postgres.Open(ctx, fresh.DSN, zap.NewNop())
		Expect(err).NotTo(HaveOccurred())
		rec := callrecord.Record{CallID: "call-1", RunID: "run-1", Kind: callrecord.KindTest, Status: callrecord.StatusRunning,
			Timing: callrecord.Timing{RequestStarted: time.Now().UTC().Truncate(time.Millisecond)}}
		Expect(postgres.NewStore(db).CallRecords().Start(ctx, rec)).To(Succeed())
		db.Close()

		By("going back to the schema before kinds, which drops the column")
		Expect(rawSchemaAt(ctx, fresh.DSN, 142).Close()).To(Succeed())

		By("opening it with this Keygate")
		db, err = postgres.Open(ctx, fresh.DSN, zap.NewNop())
		Expect(err).NotTo(HaveOccurred())
		DeferCleanup(db.Close)
		got, err := postgres.NewStore(db).CallRecords().CallRecord(ctx, "call-1")
		Expect(err).NotTo(HaveOccurred())
		Expect(got.Kind).To(Equal(callrecord.KindAgent))
	})
})

var _ = Describe("Upgrading call records an earlier Keygate stored without a client", func() {
	It("reads them as made by no client (Keygate's own features)", func(ctx SpecContext) {
		fresh, err := pgtest.New(ctx)
		Expect(err).NotTo(HaveOccurred())
		DeferCleanup(fresh.Close)
		db, err := postgres.Open(ctx, fresh.DSN, zap.NewNop())
		Expect(err).NotTo(HaveOccurred())
		rec := callrecord.Record{CallID: "call-1", RunID: "run-1", Kind: callrecord.KindAPI, Client: "codex", Status: callrecord.StatusRunning,
			Timing: callrecord.Timing{RequestStarted: time.Now().UTC().Truncate(time.Millisecond)}}
		Expect(postgres.NewStore(db).CallRecords().Start(ctx, rec)).To(Succeed())
		db.Close()

		By("going back to the schema before clients, which drops the column")
		Expect(rawSchemaAt(ctx, fresh.DSN, 151).Close()).To(Succeed())

		By("opening it with this Keygate")
		db, err = postgres.Open(ctx, fresh.DSN, zap.NewNop())
		Expect(err).NotTo(HaveOccurred())
		DeferCleanup(db.Close)
		got, err := postgres.NewStore(db).CallRecords().CallRecord(ctx, "call-1")
		Expect(err).NotTo(HaveOccurred())
		Expect(got.Client).To(BeEmpty())
		Expect(got.Kind).To(Equal(callrecord.KindAPI))
	})
})
