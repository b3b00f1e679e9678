package postgres_test

import (
	"context"

	. "github.com/onsi/ginkgo/v2"
	. "github.com/onsi/gomega"
	"go.uber.org/zap"

	"keygate/adapters/postgres"
	"keygate/ports/porttest"
)

// replica opens its own pool and relay, as a second Keygate process would.
func replica() *postgres.Relay {
	db, err := postgres.Open(context.Background(), dsn, zap.NewNop())
	Expect(err).NotTo(HaveOccurred())
	DeferCleanup(db.Close)
	r, err := postgres.NewRelay(context.Background(), db, postgres.RelayOptions{}, zap.NewNop())
	Expect(err).NotTo(HaveOccurred())
	DeferCleanup(r.Close)
	return r
}

var _ = porttest.DescribeAppendRelay("PostgreSQL", func() porttest.RelayPair {
	return porttest.RelayPair{A: replica(), B: replica()}
})
