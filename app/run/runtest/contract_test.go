package runtest_test

import (
	"keygate/app/run/runtest"
	"keygate/ports"
	"keygate/ports/porttest"
)

// open is a fresh in-memory store. Reopening it yields the same store, as
// a database file outlives the process that wrote it.
func open() porttest.Harness {
	s := runtest.NewStore()
	var h porttest.Harness
	h = porttest.Harness{
		Stores: ports.Stores{Conversations: s, Runs: s.Runs(), ToolRounds: s.Rounds(), Blobs: s.Blobs(),
			Calls: s, ContextAnchors: s},
		Calls:  s.CallRecords(),
		Reopen: func() porttest.Harness { return h },
	}
	return h
}

// The engine's specs run on this store alone, so it must keep the same
// contracts as the SQL stores.
var _ = porttest.DescribeEngineStores("In-memory (runtest)", open)
