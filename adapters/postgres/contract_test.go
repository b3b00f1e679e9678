package postgres_test

import (
	"context"

	. "github.com/onsi/ginkgo/v2"
	. "github.com/onsi/gomega"
	"go.uber.org/zap"

	"keygate/adapters/postgres"
	"keygate/ports"
	"keygate/ports/porttest"
)

// open connects a new pool to the suite's database and closes it when the
// spec ends.
func open() porttest.Harness {
	db, err := postgres.Open(context.Background(), dsn, zap.NewNop())
	Expect(err).NotTo(HaveOccurred())
	closed := false
	DeferCleanup(func() {
		if !closed {
			db.Close()
		}
	})
	st := postgres.NewStore(db)
	return porttest.Harness{
		Stores: st.Stores(), Calls: st.CallRecords(), Console: porttest.ConsoleHarness{
			Recorder: st.CallRecords(), Reader: st.CallRecords(), Calls: st.CallRecords(), Purger: st.CallRecords(),
			Conversations: st.Conversations(), Lister: st.Conversations(), Owners: st.Owners(),
		},
		Reopen: func() porttest.Harness {
			closed = true
			db.Close()
			return open()
		},
	}
}

var _ = porttest.DescribeStores("PostgreSQL", open)

var _ = porttest.DescribeConsoleStores("PostgreSQL", func() porttest.ConsoleHarness { return open().Console })

var _ = porttest.DescribePromptBytes("PostgreSQL", func() (ports.PromptStore, porttest.PromptMeter) {
	db, err := postgres.Open(context.Background(), dsn, zap.NewNop())
	Expect(err).NotTo(HaveOccurred())
	DeferCleanup(db.Close)
	st := postgres.NewStore(db)
	return st.Prompts(), st.PromptBytes
})

var _ = porttest.DescribeFateStores("PostgreSQL", func() porttest.FateHarness {
	db, err := postgres.Open(context.Background(), dsn, zap.NewNop())
	Expect(err).NotTo(HaveOccurred())
	DeferCleanup(db.Close)
	st := postgres.NewStore(db)
	return porttest.FateHarness{Recorder: st.CallRecords(), Fates: st.Fates(), Lister: st.Fates(), Purger: st.Fates()}
})

var _ = porttest.DescribeMemoryStores("PostgreSQL", func() ports.MemoryStore {
	db, err := postgres.Open(context.Background(), dsn, zap.NewNop())
	Expect(err).NotTo(HaveOccurred())
	DeferCleanup(db.Close)
	return postgres.NewStore(db).Memories()
})

var _ = porttest.DescribeModelMappingStores("PostgreSQL", func() ports.ModelMappingStore {
	db, err := postgres.Open(context.Background(), dsn, zap.NewNop())
	Expect(err).NotTo(HaveOccurred())
	DeferCleanup(db.Close)
	return postgres.NewStore(db).ModelMappings()
})

var _ = porttest.DescribeBudgetLimitStores("PostgreSQL", func() ports.BudgetLimitStore {
	db, err := postgres.Open(context.Background(), dsn, zap.NewNop())
	Expect(err).NotTo(HaveOccurred())
	DeferCleanup(db.Close)
	return postgres.NewStore(db).BudgetLimits()
})
