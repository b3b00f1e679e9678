// Package migrations embeds Keygate's PostgreSQL schema migrations (goose format)
// so the binary applies them at start. sqlc reads the same files as the
// schema of gen/sqlc/pgdb.
//
// Place in the hexagon: schema assets of the driven adapter adapters/postgres.
package migrations
