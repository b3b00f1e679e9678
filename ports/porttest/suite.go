package porttest

import (
	. "github.com/onsi/ginkgo/v2"
)

// DescribeStores declares the whole contract suite for one implementation.
// Call it at the top level of the adapter's spec file:
//
//	var _ = porttest.DescribeStores("SQLite", factory)
func DescribeStores(name string, open Factory) bool {
	return Describe(name+" stores", func() {
		describeEngineStores(open)
		describeSettings(open)
		describeModelConfigs(open)
		describeProviders(open)
		describeRouting(open)
		describeRateWindows(open)
		describePrompts(open)
		describeErase(open)
	})
}

// DescribeEngineStores declares the contract suite of the store ports the
// run engine uses (conversations, runs, tool rounds, blobs, context anchors
// and call records) for an implementation that has only those, such as the
// in-memory store of app/run/runtest. DescribeStores includes it. The
// Harness needs Stores.Conversations, Runs, ToolRounds, Blobs, Calls and
// ContextAnchors, Calls (the reader) and Reopen; the rest may be zero.
func DescribeEngineStores(name string, open Factory) bool {
	return Describe(name+" engine stores", func() {
		describeEngineStores(open)
	})
}

func describeEngineStores(open Factory) {
	describeConversations(open)
	describeReference(open)
	describeRuns(open)
	describeToolRounds(open)
	describeBlobs(open)
	describeCallRecords(open)
	describeContextAnchors(open)
}
