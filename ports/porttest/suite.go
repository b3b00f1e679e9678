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
		describeConversations(open)
		describeReference(open)
		describeRuns(open)
		describeToolRounds(open)
		describeBlobs(open)
		describeSettings(open)
		describeModelConfigs(open)
		describeCallRecords(open)
		describeContextAnchors(open)
		describePrompts(open)
	})
}
