package postgres_test

import (
	"context"

	. "github.com/onsi/ginkgo/v2"
	. "github.com/onsi/gomega"
	"go.uber.org/zap"

	"keygate/adapters/pgtest"
	"keygate/adapters/postgres"
)

var _ = Describe("postgres.Inspect", func() {
	It("reports an empty database as having every migration pending, without migrating it, and a migrated one as up to date", func(ctx SpecContext) {
		fresh, err := pgtest.New(ctx)
		Expect(err).NotTo(HaveOccurred())
		DeferCleanup(fresh.Close)
		s, err := postgres.Inspect(ctx, fresh.DSN)
		Expect(err).NotTo(HaveOccurred())
		Expect(s.Current).To(BeZero())
		Expect(s.Pending()).To(BeTrue())
		s, err = postgres.Inspect(ctx, fresh.DSN)
		Expect(err).NotTo(HaveOccurred())
		Expect(s.Current).To(BeZero(), "inspecting migrated nothing")

		db, err := postgres.Open(context.Background(), fresh.DSN, zap.NewNop())
		Expect(err).NotTo(HaveOccurred())
		db.Close()
		s, err = postgres.Inspect(ctx, fresh.DSN)
		Expect(err).NotTo(HaveOccurred())
		Expect(s.Current).To(Equal(s.Latest))
	})

	It("fails on a database it cannot reach", func(ctx SpecContext) {
		_, err := postgres.Inspect(ctx, "postgres://nobody@127.0.0.1:1/none?sslmode=disable&connect_timeout=2")
		Expect(err).To(MatchError(ContainSubstring("connect to postgres")))
	})
})
