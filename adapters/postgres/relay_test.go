package postgres_test

import (
	"context"
	"time"

	. "github.com/onsi/ginkgo/v2"
	. "github.com/onsi/gomega"
	"go.uber.org/zap"

	"keygate/adapters/postgres"
	"keygate/ports/porttest"
)

// replica opens its own pool and relay, as a second Keygate process would.
func replica(opts postgres.RelayOptions) *postgres.Relay {
	db, err := postgres.Open(context.Background(), dsn, zap.NewNop())
	Expect(err).NotTo(HaveOccurred())
	DeferCleanup(db.Close)
	r, err := postgres.NewRelay(context.Background(), db, opts, zap.NewNop())
	Expect(err).NotTo(HaveOccurred())
	DeferCleanup(r.Close)
	return r
}

var _ = porttest.DescribeAppendRelay("PostgreSQL", func() porttest.RelayPair {
	opts := postgres.RelayOptions{LeaseTTL: time.Second}
	a := replica(opts)
	return porttest.RelayPair{A: a, B: replica(opts), StopA: a.Close}
})
