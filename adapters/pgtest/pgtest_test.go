package pgtest_test

import (
	"context"
	"os"
	"time"

	"github.com/jackc/pgx/v5"
	. "github.com/onsi/ginkgo/v2"
	. "github.com/onsi/gomega"

	"keygate/adapters/pgtest"
)

// connects asserts that dsn accepts a connection and a query.
func connects(ctx context.Context, dsn string) {
	conn, err := pgx.Connect(ctx, dsn)
	Expect(err).NotTo(HaveOccurred())
	defer conn.Close(ctx)
	var one int
	Expect(conn.QueryRow(ctx, "SELECT 1").Scan(&one)).To(Succeed())
	Expect(one).To(Equal(1))
}

var _ = Describe("pgtest.New", func() {
	It("returns a fresh database that accepts connections and is gone after Close", func(ctx SpecContext) {
		db, err := pgtest.New(ctx)
		Expect(err).NotTo(HaveOccurred())
		connects(ctx, db.DSN)
		Expect(db.Close()).To(Succeed())
		_, err = pgx.Connect(ctx, db.DSN)
		Expect(err).To(HaveOccurred(), "the database was dropped")
	}, NodeTimeout(time.Minute))
})

var _ = Describe("pgtest.Throwaway", func() {
	It("starts a private cluster and removes it on Close", func(ctx SpecContext) {
		db, err := pgtest.Throwaway(ctx)
		Expect(err).NotTo(HaveOccurred())
		connects(ctx, db.DSN)
		Expect(db.Source).To(HavePrefix("throwaway cluster "))
		dir := db.Source[len("throwaway cluster "):]
		Expect(dir).To(BeADirectory())
		Expect(db.Close()).To(Succeed())
		_, err = os.Stat(dir)
		Expect(os.IsNotExist(err)).To(BeTrue())
	}, NodeTimeout(time.Minute))
})
