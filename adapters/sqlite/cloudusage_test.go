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

var _ = porttest.DescribeCloudUsageStore("SQLite", func() ports.CloudUsageStore {
	db, err := sqlite.Open(context.Background(), GinkgoT().TempDir(), zap.NewNop())
	Expect(err).NotTo(HaveOccurred())
	DeferCleanup(db.Close)
	return sqlite.NewStore(db).CloudUsage()
})
