package agent_test

import (
	"context"
	"slices"
	"time"

	"connectrpc.com/connect"
	. "github.com/onsi/ginkgo/v2"
	. "github.com/onsi/gomega"

	"keygate/adapters/cursor/agent"
	"keygate/adapters/cursor/cursortest"
	"keygate/adapters/provider/providertest"
	agentv1 "keygate/gen/cursor/agent/v1"
)

var _ = Describe("Handler facing a client slow to acknowledge blobs", func() {
	It("calls the model at once and holds the text until the user turn's checkpoint is published", func() {
		h := newHarness(mainKind)
		h.reply(providertest.Turn{ID: "r1", Text: []string{"Early answer."}})
		t := newFakeTurn()
		done := t.serve(context.Background(), h.newHandler(agent.Options{AckTimeout: 10 * time.Second}),
			"req-slow", cursortest.RunRequest("conv-slow", "kg-model", "Hi"))

		Eventually(h.provider.Requests).Should(HaveLen(1), "the model is called before any SET is acknowledged")
		Expect(cursortest.Kinds(t.sent())).To(ContainElement("kv_set"))
		Consistently(func() []string { return cursortest.Kinds(t.sent()) }, 100*time.Millisecond).ShouldNot(
			ContainElements(Or(Equal("text"), Equal("checkpoint:settled"))))

		t.ackSets()
		Eventually(func() []string { return cursortest.Kinds(t.sent()) }).Should(ContainElement("text"))
		// The final checkpoint's blobs: the turn ends once they are ACKed.
		Eventually(func() int { return countOf(cursortest.Kinds(t.sent()), "kv_set") }).Should(BeNumerically(">", t.acks()))
		t.ackSets()
		Eventually(done).Should(Receive(BeNil()))
		ks := cursortest.Kinds(t.sent())
		Expect(slices.Index(ks, "checkpoint:settled")).To(BeNumerically("<", slices.Index(ks, "text")))
		Expect(ks[len(ks)-4:]).To(Equal([]string{"turn_ended", "checkpoint:staged", "checkpoint:settled", "checkpoint:settled"}))
	})
})

var _ = Describe("Handler whose client stream is gone", func() {
	// gone is a turn whose stream fails at the first text the run sends.
	gone := func(h *harness, req string) (*fakeTurn, <-chan error) {
		t := newFakeTurn()
		t.autoAck = true
		t.failSend = func(m *agentv1.AgentServerMessage) bool { return m.GetInteractionUpdate().GetTextDelta() != nil }
		return t, t.serve(context.Background(), h.newHandler(agent.Options{}), req, cursortest.RunRequest("conv-"+req, "kg-model", "Hi"))
	}

	It("stops the run and ends the turn as cancelled, although the provider never finishes", func() {
		h := newHarness(mainKind)
		h.provider.Enqueue(stallAfter(mainKind, providertest.Turn{ID: "r1", Text: []string{"Partial ", "answer"}}, "Partial"))
		_, done := gone(h, "req-stall")
		var err error
		Eventually(done).Should(Receive(&err))
		Expect(connect.CodeOf(err)).To(Equal(connect.CodeCanceled))
		Expect(err).To(MatchError(ContainSubstring("client stream lost")))
		Eventually(h.provider.Gone()).Should(Receive(), "the provider call is closed")
	})

	It("sends nothing after the first failed send: no more text, no turn_ended, no checkpoint", func() {
		h := newHarness(mainKind)
		h.reply(providertest.Turn{ID: "r1", Text: []string{"One ", "two ", "three."}})
		t, done := gone(h, "req-rest")
		var err error
		Eventually(done).Should(Receive(&err))
		Expect(connect.CodeOf(err)).To(Equal(connect.CodeCanceled))
		Expect(t.sendsAfterFailure()).To(BeZero())
		Expect(cursortest.Kinds(t.sent())).NotTo(ContainElements(Or(Equal("text"), Equal("turn_ended"))))
	})
})
