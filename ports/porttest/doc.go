// Package porttest is the contract suite of the store ports. Every store
// implementation (adapters/sqlite, adapters/postgres) runs the same specs by
// calling [DescribeStores] with a factory, and the in-memory store the run
// engine's specs use (app/run/runtest) runs the part for the ports it has
// ([DescribeEngineStores]), so the ports' doc comments are checked, not just
// promised: stale heads rejected, idempotent retries, preemption, atomic
// tool-result commits, verified blobs, cancelled contexts writing nothing,
// and data surviving a reopen.
//
// Place in the hexagon: ports. Imports: the standard library, domain, ports,
// github.com/onsi/ginkgo/v2 and github.com/onsi/gomega; never an adapter.
package porttest
