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
// Each scenario is one entry of the table in scenario.go (its -only name,
// how it runs, how its targets are judged) and a file of its own; the
// report is rendered from the templates in report/ (embedded), one file
// per scenario for its section, its targets' rows and their explanations,
// so that prose lives in markdown and a broken template fails the
// package's specs rather than a long run. -json writes a run's results and
// -baseline reads them back: a target that asks for no regression is
// judged against that previous run, never against figures kept in code.
// The children kgbench starts of itself (child.go, appchild.go) are
// subcommands with flag sets of their own.
//
// Place in the hexagon: a command, like cmd/keygate, so it may assemble
// adapters directly. It builds the stack the way the run layer's end-to-end
// specs do (SQLite store, run engine, real provider client, Cursor adapter
// served over HTTP, optionally behind the forward proxy) and drives it with
// the Cursor client simulator (adapters/cursor/cursortest). For Keygate's
// own memory the concurrency scenario also runs the same stack in a child
// process of this binary (`kgbench serve-keygate`, child.go), so that the
// fake provider and the simulated clients are not counted with it.
//
// The paced fake provider is hand-written here instead of reusing
// providertest.Server because the benchmark needs what that server has no
// reason to offer: a fixed pace between tokens, a send timestamp per token,
// and a start barrier so that N turns really stream at the same time.
package main
