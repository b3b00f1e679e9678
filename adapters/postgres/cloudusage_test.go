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

var _ = porttest.DescribeCloudUsageStore("PostgreSQL", func() ports.CloudUsageStore {
	db, err := postgres.Open(context.Background(), dsn, zap.NewNop())
	Expect(err).NotTo(HaveOccurred())
	DeferCleanup(db.Close)
	return postgres.NewStore(db).CloudUsage()
})
