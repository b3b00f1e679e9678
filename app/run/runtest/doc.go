// Package runtest is test support for the run engine and everything built
// on it: a faithful in-memory implementation of the store ports the engine
// uses ([Store]), a fake clock that only moves when a spec advances it
// ([Clock]), a provider decorator that keeps every request the engine made
// ([Provider]) and a scripted transport that drains a run's events,
// acknowledges commit barriers and answers tool rounds ([Transport]).
//
// Place in the hexagon: test support for app/run (a normal package so specs
// of other packages can import it; production code never does). Imports: the
// standard library, domain, ports and app/run. The in-memory store applies
// exactly the rules of the ports' contracts (conversation.Log for appends,
// ownership checks, preemption, tool-round commits, blobs named by images)
// and runs the same contract suite as the SQL stores
// (porttest.DescribeEngineStores in contract_test.go), which is why the
// engine's specs run on it alone, with a few smoke specs on SQLite.
package runtest
