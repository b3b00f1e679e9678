package postgres_test

import (
	"context"
	"os"
	"testing"

	. "github.com/onsi/ginkgo/v2"
	. "github.com/onsi/gomega"

	"keygate/adapters/pgtest"
)

func TestPostgres(t *testing.T) {
	if child := os.Getenv(crashDSNEnv); child != "" {
		crashChild(child, os.Getenv(crashModeEnv), os.Getenv(crashConvEnv)) // see crash_test.go
	}
	RegisterFailHandler(Fail)
	RunSpecs(t, "PostgreSQL store")
}

// dsn is this process's fresh database; every spec shares it and keeps to
// its own conversations, runs and blobs (ids are unique per spec).
var dsn string

var _ = BeforeSuite(func(ctx context.Context) {
	db, err := pgtest.New(ctx)
	Expect(err).NotTo(HaveOccurred(), "the PostgreSQL specs need a server and never skip")
	GinkgoWriter.Printf("PostgreSQL specs on %s\n", db.Source)
	DeferCleanup(db.Close)
	dsn = db.DSN
})
