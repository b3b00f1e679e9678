package run_test

import (
	"context"
	"sync/atomic"

	. "github.com/onsi/ginkgo/v2"
	. "github.com/onsi/gomega"
	"go.uber.org/zap"

	"keygate/adapters/provider"
	"keygate/app/run"
	"keygate/app/run/runtest"
	"keygate/domain/conversation"
	"keygate/ports"
)

// countingConvs counts full conversation loads.
type countingConvs struct {
	ports.ConversationStore
	loads atomic.Int32
}

func (c *countingConvs) Load(ctx context.Context, id string) (conversation.Checkpoint, []conversation.Message, error) {
	c.loads.Add(1)
	return c.ConversationStore.Load(ctx, id)
}

var _ = Describe("Engine.Start with the transport's history", func() {
	var (
		h     *harness
		convs *countingConvs
		calls *runtest.Provider
		head  conversation.Checkpoint
		msgs  []conversation.Message
		t     *runtest.Transport
	)
	BeforeEach(func() {
		h = newHarness(memoryBackend, run.Limits{})
		h.enqueue(text("First answer."))
		Expect(finish(h.start(h.prepared(userText("e1", "first")), &runtest.Transport{})).Status).To(Equal(run.Completed))
		convs = &countingConvs{ConversationStore: h.b.convs}
		calls = &runtest.Provider{Next: provider.New(provider.Options{Recorder: h.b.calls, Now: h.clock.Now})}
		e, err := run.New(run.Options{Conversations: convs, Runs: h.b.runs, ToolRounds: h.b.rounds,
			Anchors: h.b.anchors, Provider: calls,
			Clock: h.clock, Logger: zap.NewNop()})
		Expect(err).NotTo(HaveOccurred())
		h.engine = e
		head, err = h.b.convs.Head(context.Background(), h.conv)
		Expect(err).NotTo(HaveOccurred())
		_, msgs, err = h.b.convs.Load(context.Background(), head.ID())
		Expect(err).NotTo(HaveOccurred())
		h.enqueue(text("Second answer."))
		t = &runtest.Transport{}
	})

	// committedLists checks that every commit carries its checkpoint's
	// stored list, or none.
	committedLists := func() int {
		n := 0
		for _, c := range eventsOf[run.MessagesCommitted](t.Events()) {
			if c.Messages == nil {
				continue
			}
			n++
			_, want, err := h.b.convs.Load(context.Background(), c.CheckpointID)
			Expect(err).NotTo(HaveOccurred())
			Expect(ids(c.Messages)).To(Equal(ids(want)))
		}
		return n
	}

	It("builds on it without loading the conversation and hands each committed list to the transport", func() {
		p := h.prepared(userText("e2", "second"))
		p.History, p.HistoryOf = msgs, head.ID()
		Expect(finish(h.start(p, t)).Status).To(Equal(run.Completed))
		Eventually(t.Done()).Should(BeClosed())
		Expect(convs.loads.Load()).To(BeZero())
		Expect(committedLists()).To(Equal(2))
		Expect(texts(calls.Calls()[0].Request.Messages)).To(ContainElements(
			"user: first", "assistant: First answer.", "user: second"))
	})

	It("loads the conversation once when the history is of another checkpoint", func() {
		p := h.prepared(userText("e2", "second"))
		p.History, p.HistoryOf = msgs[:1], "ck_elsewhere"
		Expect(finish(h.start(p, t)).Status).To(Equal(run.Completed))
		Eventually(t.Done()).Should(BeClosed())
		Expect(convs.loads.Load()).To(BeEquivalentTo(1))
		Expect(committedLists()).To(Equal(1))
		Expect(texts(calls.Calls()[0].Request.Messages)).To(ContainElements(
			"user: first", "assistant: First answer.", "user: second"))
	})
})
