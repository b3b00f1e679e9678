// Command kgbench measures what Keygate adds on this machine and writes
// BENCHMARKS.md: added latency per streamed token and added time to first
// token against the same fake provider read directly, concurrent streaming
// turns (throughput, errors, inter-frame gaps, resident memory, goroutines
// left behind), checkpoint cost against conversation length, and store
// operation latency on SQLite and PostgreSQL.
//
// Every figure comes from one process run: each Keygate number is printed
// next to its baselines measured in the same run (a plain SSE client reading
// the same paced fake provider, and the same client through a relay that
// only copies bytes, the floor of any gateway), never against a stored
// constant. The machine may be shared, so each scenario also reports how
// many cores other processes used meanwhile, and -nice raises the run's
// priority when allowed.
//
// Place in the hexagon: a command, like cmd/keygate, so it may assemble
// adapters directly. It builds the stack the way the run layer's end-to-end
// specs do (SQLite store, run engine, real provider client, Cursor adapter
// served over HTTP, optionally behind the forward proxy) and drives it with
// the Cursor client simulator (adapters/cursor/cursortest). For Keygate's
// own memory the concurrency scenario also runs the same stack in a child
// process of this binary (child.go), so that the fake provider and the
// simulated clients are not counted with it.
//
// The paced fake provider is hand-written here instead of reusing
// providertest.Server because the benchmark needs what that server has no
// reason to offer: a fixed pace between tokens, a send timestamp per token,
// and a start barrier so that N turns really stream at the same time.
package main
