// Package migrations embeds Keygate's SQLite schema migrations (goose format)
// so the binary applies them at start. sqlc reads the same files as the
// schema of gen/sqlc/sqlitedb.
package migrations

import "embed"

// FS holds the migration files at its root.
//
//go:embed *.sql
var FS embed.FS
