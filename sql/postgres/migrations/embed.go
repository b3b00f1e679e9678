// Package migrations embeds Keygate's PostgreSQL schema migrations (goose format)
// so the binary applies them at start. sqlc reads the same files as the
// schema of gen/sqlc/pgdb.
package migrations

import "embed"

// FS holds the migration files at its root.
//
//go:embed *.sql
var FS embed.FS
