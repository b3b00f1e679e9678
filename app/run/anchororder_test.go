package run_test

import (
	"context"
	"errors"

	. "github.com/onsi/ginkgo/v2"
	. "github.com/onsi/gomega"
	"go.uber.org/zap"

	"keygate/adapters/provider"
	"keygate/app/run"
	"keygate/app/run/runtest"
	"keygate/domain/compaction"
	"keygate/domain/conversation"
	"keygate/ports"
)

// refusingAnchors fails every anchor write, as a store that went away
// with its replica between two writes would.
type refusingAnchors struct{ ports.ContextAnchorStore }

func (refusingAnchors) PutContextAnchor(context.Context, string, compaction.Anchor) error {
	return errors.New("anchor store gone")
}

var _ = Describe("Engine storing a model cycle's output", func() {
	// Until a cycle's output is stored, a replica that dies has it sampled
	// again by the resume: nothing else is written between the stream's
	// end and that commit.
	var h *harness
	BeforeEach(func() {
		h = newHarness(memoryBackend, run.Limits{})
		e, err := run.New(run.Options{Conversations: h.b.convs, Runs: h.b.runs, ToolRounds: h.b.rounds,
			Anchors: refusingAnchors{h.b.anchors}, Blobs: h.b.blobs,
			Provider: provider.New(provider.Options{Recorder: h.b.calls, Now: h.clock.Now}),
			Clock:    h.clock, Logger: zap.NewNop()})
		Expect(err).NotTo(HaveOccurred())
		h.engine = e
	})

	It("stores a final answer before the context anchor", func() {
		h.enqueue(text("The answer."))
		p := h.prepared(userText("e1", "hi"))
		Expect(finish(h.start(p, &runtest.Transport{})).Status).NotTo(Equal(run.Completed), "the anchor's write failed")
		head, err := h.b.convs.Head(context.Background(), h.conv)
		Expect(err).NotTo(HaveOccurred())
		_, msgs, err := h.b.convs.Load(context.Background(), head.ID())
		Expect(err).NotTo(HaveOccurred())
		Expect(ids(msgs)).To(ContainElement(conversation.AssistantID(p.RunID, 0)))
	})

	It("stores a tool round before the context anchor", func() {
		h.enqueue(tools(call("c1", "Read", `{"path":"a"}`)))
		p := h.prepared(userText("e1", "read a"))
		Expect(finish(h.start(p, &runtest.Transport{OnEvent: answerCalls})).Status).NotTo(Equal(run.Completed), "the anchor's write failed")
		round, err := h.b.rounds.Round(context.Background(), conversation.ToolRoundID(p.RunID, 0))
		Expect(err).NotTo(HaveOccurred())
		Expect(round.ID()).To(Equal(conversation.ToolRoundID(p.RunID, 0)))
	})
})
