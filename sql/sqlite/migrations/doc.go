// Package migrations embeds Keygate's SQLite schema migrations (goose format)
// so the binary applies them at start. sqlc reads the same files as the
// schema of gen/sqlc/sqlitedb.
//
// Place in the hexagon: schema assets of the driven adapter adapters/sqlite.
package migrations
