// Package pgtest gives tests a fresh, throwaway PostgreSQL database.
//
// Place in the hexagon: an adapter-side test helper; only specs import it.
//
// It finds a server in this order and says which one it used:
//
//  1. TEST_DATABASE_URL, when set (CI points it at a service container);
//  2. a server on 127.0.0.1:5432 accepting user postgres without a password
//     (a developer machine);
//  3. a private cluster it creates with the installed initdb under /tmp,
//     started with pg_ctl on a free loopback port and removed afterwards
//     (initdb refuses to run as root, so as root it runs as user postgres).
//
// On the chosen server it creates a database of its own (dropped on Close),
// so parallel test processes never see each other's rows. When none of the
// three works, New fails with an error that lists why each was rejected:
// PostgreSQL specs fail loudly instead of skipping.
//
// Hand-written rather than a library (testcontainers, embedded-postgres):
// those need Docker or download binaries at test time; this uses what the
// machine or CI already has.
package pgtest
