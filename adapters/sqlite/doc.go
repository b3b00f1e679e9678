// Package sqlite is the embedded default store: one SQLite file in the data
// directory, opened with the pure-Go modernc.org/sqlite driver (no cgo),
// created and migrated on first start.
//
// Place in the hexagon: adapters. It implements relstore's row interface with
// the sqlc package gen/sqlc/sqlitedb, which no other package imports, and
// hands it to relstore, which implements the store ports. Generated rows
// become domain values in the xxxFromRow functions of this package; driver
// errors are translated once, in interpretError.
//
// SQLite has one writer. Writes go through a pool of exactly one connection
// whose transactions begin IMMEDIATE, so in-process writers queue in
// database/sql instead of failing with SQLITE_BUSY, and another process
// (a second keygate, the crash spec's child) waits up to the busy timeout.
// Reads use a separate pool and, thanks to WAL, never block the writer.
// Times are INTEGER unix milliseconds in UTC.
package sqlite
