package sqlite_test

import (
	"time"

	. "github.com/onsi/ginkgo/v2"
	. "github.com/onsi/gomega"
	"go.uber.org/zap"

	"keygate/adapters/sqlite"
	"keygate/domain/callrecord"
)

var _ = Describe("Upgrading call records an earlier Keygate stored without a kind", func() {
	It("reads them as Agent calls", func(ctx SpecContext) {
		dir := GinkgoT().TempDir()
		db, err := sqlite.Open(ctx, dir, zap.NewNop())
		Expect(err).NotTo(HaveOccurred())
		rec := callrecord.Record{CallID: "call-1", RunID: "run-1", Kind: callrecord.KindTest, Status: callrecord.StatusRunning,
			Timing: callrecord.Timing{RequestStarted: time.Now().UTC().Truncate(time.Millisecond)}}
		Expect(sqlite.NewStore(db).CallRecords().Start(ctx, rec)).To(Succeed())
		Expect(db.Close()).To(Succeed())

		By("going back to the schema before kinds, which drops the column")
		Expect(rawSchemaAt(ctx, db.Path(), 142).Close()).To(Succeed())

		By("opening it with this Keygate")
		db, err = sqlite.Open(ctx, dir, zap.NewNop())
		Expect(err).NotTo(HaveOccurred())
		DeferCleanup(db.Close)
		got, err := sqlite.NewStore(db).CallRecords().CallRecord(ctx, "call-1")
		Expect(err).NotTo(HaveOccurred())
		Expect(got.Kind).To(Equal(callrecord.KindAgent))
	})
})

var _ = Describe("Upgrading call records an earlier Keygate stored without a client", func() {
	It("reads them as made by no client (Keygate's own features)", func(ctx SpecContext) {
		dir := GinkgoT().TempDir()
		db, err := sqlite.Open(ctx, dir, zap.NewNop())
		Expect(err).NotTo(HaveOccurred())
		rec := callrecord.Record{CallID: "call-1", RunID: "run-1", Kind: callrecord.KindAPI, Client: "codex", Status: callrecord.StatusRunning,
			Timing: callrecord.Timing{RequestStarted: time.Now().UTC().Truncate(time.Millisecond)}}
		Expect(sqlite.NewStore(db).CallRecords().Start(ctx, rec)).To(Succeed())
		Expect(db.Close()).To(Succeed())

		By("going back to the schema before clients, which drops the column")
		Expect(rawSchemaAt(ctx, db.Path(), 151).Close()).To(Succeed())

		By("opening it with this Keygate")
		db, err = sqlite.Open(ctx, dir, zap.NewNop())
		Expect(err).NotTo(HaveOccurred())
		DeferCleanup(db.Close)
		got, err := sqlite.NewStore(db).CallRecords().CallRecord(ctx, "call-1")
		Expect(err).NotTo(HaveOccurred())
		Expect(got.Client).To(BeEmpty())
		Expect(got.Kind).To(Equal(callrecord.KindAPI))
	})
})
