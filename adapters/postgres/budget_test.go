package postgres_test

import (
	"context"

	. "github.com/onsi/ginkgo/v2"
	. "github.com/onsi/gomega"
	"go.uber.org/zap"

	"keygate/adapters/postgres"
	"keygate/ports/porttest"
)

var _ = porttest.DescribeBudgetStores("PostgreSQL", func() porttest.BudgetHarness {
	db, err := postgres.Open(context.Background(), dsn, zap.NewNop())
	Expect(err).NotTo(HaveOccurred())
	DeferCleanup(db.Close)
	b := postgres.NewStore(db).Budgets()
	return porttest.BudgetHarness{Counter: b, Leases: b}
})
