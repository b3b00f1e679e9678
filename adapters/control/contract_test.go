package control_test

import (
	"keygate/adapters/control/controltest"
	"keygate/ports/porttest"
)

// The in-memory stores the specs and the browser test run on must keep the
// same contract as the real stores.
var _ = porttest.DescribeConsoleStores("in-memory", func() porttest.ConsoleHarness {
	calls, convs := controltest.NewStore(nil), controltest.NewConversations(nil)
	convs.ModelsFrom(calls)
	return porttest.ConsoleHarness{Recorder: calls, Reader: calls, Calls: calls, Purger: calls,
		Conversations: convs, Lister: convs}
})
