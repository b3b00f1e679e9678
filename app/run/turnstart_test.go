package run_test

import (
	. "github.com/onsi/ginkgo/v2"
	. "github.com/onsi/gomega"

	"keygate/app/run"
	"keygate/app/run/runtest"
)

var _ = Describe("Turn start", func() {
	for _, b := range []struct {
		name string
		open func() backend
	}{{"in memory", memoryBackend}, {"on SQLite", sqliteBackend}} {
		It("claims the run, appends the user's message and begins the model cycle in one store write ("+b.name+")", func() {
			h := newHarness(b.open, run.Limits{})
			h.enqueue(tools(call("call-1", "Read", `{"path":"1"}`)), text("done"))
			t := &runtest.Transport{OnEvent: answerCalls}
			Expect(finish(h.start(h.prepared(userText("e1", "go")), t)).Status).To(Equal(run.Completed))
			Expect(h.life.claimTurns.Load()).To(Equal(int32(1)))
			Expect(h.life.claims.Load()).To(BeZero(), "no separate claim")
			Expect(h.life.begins.Load()).To(Equal(int32(1)), "only the second model cycle begins on its own")
			Expect(ids(h.history())[0]).To(ContainSubstring("e1"))
			Expect(kindsOf(t.Events())[0]).To(Equal("initial_messages"))
		})
	}
})
