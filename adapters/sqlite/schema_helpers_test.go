package sqlite_test

import (
	"context"
	"database/sql"

	. "github.com/onsi/gomega"
	"github.com/pressly/goose/v3"

	"keygate/sql/sqlite/migrations"
)

// rawSchemaAt opens the database file at path without Keygate and takes
// its schema back to version, for a migration spec to store rows as an
// earlier Keygate did; the caller closes it.
func rawSchemaAt(ctx context.Context, path string, version int64) *sql.DB {
	raw, err := sql.Open("sqlite", "file:"+path)
	Expect(err).NotTo(HaveOccurred())
	schemaDown(ctx, raw, version)
	return raw
}

// schemaDown takes raw's schema back to version.
func schemaDown(ctx context.Context, raw *sql.DB, version int64) {
	p, err := goose.NewProvider(goose.DialectSQLite3, raw, migrations.FS)
	Expect(err).NotTo(HaveOccurred())
	_, err = p.DownTo(ctx, version)
	Expect(err).NotTo(HaveOccurred())
}
