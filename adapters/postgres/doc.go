// Package postgres is the company store: PostgreSQL through a pgx pool,
// shared by several Keygate replicas. Migrations are embedded and applied at
// start under a PostgreSQL advisory lock, so replicas starting together
// migrate once.
//
// Place in the hexagon: adapters. It implements relstore's row interface with
// the sqlc package gen/sqlc/pgdb, which no other package imports, and hands
// it to relstore, which implements the store ports. Generated rows become
// domain values in the xxxFromRow functions of this package; driver errors
// are translated once, in interpretError.
//
// Concurrency: transactions run at READ COMMITTED, and every write to a
// conversation first locks its row (SELECT … FOR UPDATE), so writers of one
// conversation are serialized across replicas while other conversations
// proceed in parallel. Reads use a REPEATABLE READ read-only transaction so a
// multi-query read sees one snapshot.
package postgres
