package sqlite_test

import (
	"context"

	. "github.com/onsi/ginkgo/v2"
	. "github.com/onsi/gomega"
	"go.uber.org/zap"

	"keygate/adapters/sqlite"
	"keygate/ports/porttest"
)

var _ = porttest.DescribeBudgetStores("SQLite", func() porttest.BudgetHarness {
	db, err := sqlite.Open(context.Background(), GinkgoT().TempDir(), zap.NewNop())
	Expect(err).NotTo(HaveOccurred())
	DeferCleanup(db.Close)
	b := sqlite.NewStore(db).Budgets()
	return porttest.BudgetHarness{Counter: b, Leases: b}
})
