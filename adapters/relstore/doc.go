// Package relstore implements the store ports (conversations, anchors, runs,
// tool rounds, blobs, settings, model configurations, call records) once, on
// top of the row operations of a transaction ([Tx]) that each SQL adapter
// provides with its own sqlc-generated queries. The rows themselves are built
// and mapped here too (the *rows.go files): sqlc.yaml gives both engines'
// columns the same Go types but for times ([Stamp]), so an engine's generated
// struct converts to the row type here and the adapter only binds queries.
//
// Place in the hexagon: adapters. Imports: the standard library, domain and
// ports; it never sees a driver or a generated row (it declares the rows'
// shapes; an engine's conversion checks its generated struct against them
// at compile time). adapters/sqlite and adapters/postgres implement
// [Engine] and [Tx] and hand them to [New].
//
// Why a shared package instead of two full adapters: the rules of a write
// (what to lock, which facts to gather for conversation.Plan.Decide, what to
// insert, ownership checks, preemption) are the same on both engines. Written
// twice they would drift; here they are written once and both engines run the
// same contract suite (ports/porttest) against them. What differs per engine
// — SQL dialect, the time type, locking, transactions and error codes —
// stays in the engine's own adapter.
package relstore
