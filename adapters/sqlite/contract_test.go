package sqlite_test

import (
	"context"

	. "github.com/onsi/ginkgo/v2"
	. "github.com/onsi/gomega"
	"go.uber.org/zap"

	"keygate/adapters/sqlite"
	"keygate/ports"
	"keygate/ports/porttest"
)

// openIn opens the store in dir and closes it when the spec ends.
func openIn(dir string) porttest.Harness {
	db, err := sqlite.Open(context.Background(), dir, zap.NewNop())
	Expect(err).NotTo(HaveOccurred())
	closed := false
	DeferCleanup(func() {
		if !closed {
			Expect(db.Close()).To(Succeed())
		}
	})
	st := sqlite.NewStore(db)
	return porttest.Harness{
		Stores: st.Stores(), Calls: st.CallRecords(), Console: porttest.ConsoleHarness{
			Recorder: st.CallRecords(), Reader: st.CallRecords(), Calls: st.CallRecords(), Purger: st.CallRecords(),
			Conversations: st.Conversations(), Lister: st.Conversations(), Owners: st.Owners(),
		},
		Reopen: func() porttest.Harness {
			closed = true
			Expect(db.Close()).To(Succeed())
			return openIn(dir)
		},
	}
}

var _ = porttest.DescribeStores("SQLite", func() porttest.Harness { return openIn(GinkgoT().TempDir()) })

var _ = porttest.DescribeConsoleStores("SQLite", func() porttest.ConsoleHarness {
	return openIn(GinkgoT().TempDir()).Console
})

var _ = porttest.DescribePromptBytes("SQLite", func() (ports.PromptStore, porttest.PromptMeter) {
	db, err := sqlite.Open(context.Background(), GinkgoT().TempDir(), zap.NewNop())
	Expect(err).NotTo(HaveOccurred())
	DeferCleanup(db.Close)
	st := sqlite.NewStore(db)
	return st.Prompts(), st.PromptBytes
})

var _ = porttest.DescribeFateStores("SQLite", func() porttest.FateHarness {
	db, err := sqlite.Open(context.Background(), GinkgoT().TempDir(), zap.NewNop())
	Expect(err).NotTo(HaveOccurred())
	DeferCleanup(db.Close)
	st := sqlite.NewStore(db)
	return porttest.FateHarness{Recorder: st.CallRecords(), Fates: st.Fates(), Lister: st.Fates(), Purger: st.Fates()}
})

var _ = porttest.DescribeMemoryStores("SQLite", func() ports.MemoryStore {
	db, err := sqlite.Open(context.Background(), GinkgoT().TempDir(), zap.NewNop())
	Expect(err).NotTo(HaveOccurred())
	DeferCleanup(db.Close)
	return sqlite.NewStore(db).Memories()
})

var _ = porttest.DescribeModelMappingStores("SQLite", func() ports.ModelMappingStore {
	db, err := sqlite.Open(context.Background(), GinkgoT().TempDir(), zap.NewNop())
	Expect(err).NotTo(HaveOccurred())
	DeferCleanup(db.Close)
	return sqlite.NewStore(db).ModelMappings()
})

var _ = porttest.DescribeBudgetLimitStores("SQLite", func() ports.BudgetLimitStore {
	db, err := sqlite.Open(context.Background(), GinkgoT().TempDir(), zap.NewNop())
	Expect(err).NotTo(HaveOccurred())
	DeferCleanup(db.Close)
	return sqlite.NewStore(db).BudgetLimits()
})
