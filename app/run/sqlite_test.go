package run_test

import (
	"context"

	. "github.com/onsi/ginkgo/v2"
	. "github.com/onsi/gomega"
	"go.uber.org/zap"

	"keygate/adapters/relstore"
	"keygate/adapters/sqlite"
	"keygate/app/run"
	"keygate/app/run/runtest"
	"keygate/domain/callrecord"
	"keygate/domain/conversation"
	"keygate/domain/llm"
	"keygate/ports"
)

// sqliteBackend opens a store in a fresh directory; reopen opens the same
// file again, as a restarted process does.
func sqliteBackend() backend {
	dir := GinkgoT().TempDir()
	var open func() backend
	open = func() backend {
		db, err := sqlite.Open(context.Background(), dir, zap.NewNop())
		Expect(err).NotTo(HaveOccurred())
		DeferCleanup(db.Close)
		s := relstore.New(db, nil)
		st := s.Stores()
		reader := s.CallRecords()
		return backend{
			convs: st.Conversations, runs: st.Runs, rounds: st.ToolRounds, anchors: st.ContextAnchors,
			blobs: st.Blobs, calls: st.Calls,
			record: func(id string) (callrecord.Record, bool) {
				rec, err := reader.CallRecord(context.Background(), id)
				return rec, err == nil
			},
			reopen: func() backend { return open() },
		}
	}
	return open()
}

// The engine's specs run on the in-memory store, which keeps the store
// contracts the SQL stores keep (app/run/runtest runs the same contract
// suite). These few run the engine on a real SQLite file, one per store
// port it writes, and read back what the file holds once the process that
// wrote it is gone.
var _ = Describe("Engine on the SQLite store", func() {
	var (
		h   *harness
		ctx = context.Background()
	)
	BeforeEach(func() { h = newHarness(sqliteBackend, run.Limits{}) })

	It("keeps a completed turn's messages, the run's end and its call record in the file", func() {
		h.enqueue(text("Hello there."))
		hd := h.start(h.prepared(userText("e1", "hi")), &runtest.Transport{})
		Expect(finish(hd).Status).To(Equal(run.Completed))

		h.b = h.b.reopen()
		Expect(ids(h.history())).To(Equal([]string{"runtime:e1", conversation.AssistantID(hd.RunID(), 0)}))
		stored, err := h.b.runs.Run(ctx, hd.RunID())
		Expect(err).NotTo(HaveOccurred())
		Expect(stored.Status).To(Equal(ports.RunCompleted))
		Expect(stored.Usage.Input).To(Equal(int64(100)))
		rec, ok := h.b.record(conversation.ProviderCallID(hd.RunID(), 0, 0))
		Expect(ok).To(BeTrue())
		Expect(rec.Status).To(Equal(callrecord.StatusCompleted))
	})

	It("keeps each tool result right after its call, and the round settled, in the file", func() {
		h.enqueue(tools(call("call-1", "Read", `{"path":"a.go"}`), call("call-2", "Read", `{"path":"b.go"}`)), text("Done."))
		t := &runtest.Transport{OnEvent: answer(func(c llm.ToolCall) string { return "r-" + c.CallID })}
		hd := h.start(h.prepared(userText("e1", "read both")), t)
		Expect(finish(hd).Status).To(Equal(run.Completed))

		h.b = h.b.reopen()
		round := conversation.ToolRoundID(hd.RunID(), 0)
		Expect(ids(h.history())).To(ConsistOf(
			"runtime:e1",
			conversation.ToolCallPartID(round, "call-1"), conversation.ToolResultID(round, "call-1"),
			conversation.ToolCallPartID(round, "call-2"), conversation.ToolResultID(round, "call-2"),
			conversation.AssistantID(hd.RunID(), 1),
		))
		stored, err := h.b.rounds.Round(ctx, round)
		Expect(err).NotTo(HaveOccurred())
		Expect(stored.Settled()).To(BeTrue())
		Expect(texts(h.provider.Calls()[1].Request.Messages)).To(ContainElements("tool: r-call-1", "tool: r-call-2"))
	})

	It("resumes a turn that crashed in the middle of a tool round from what the file holds", func() {
		// Commit point 4: one result of the two parallel calls of the
		// second round is stored, the round is open.
		crashAndResume(h, 4, true)
	})

	It("keeps a preempted run cancelled in the file, with its call record closed", func() {
		h.server.Enqueue(headersStalled())
		older := h.start(h.prepared(userText("e1", "first")), &runtest.Transport{})
		Eventually(h.server.Requests).Should(HaveLen(1))
		h.enqueue(text("second answer"))
		newer := h.start(h.prepared(userText("e2", "second")), &runtest.Transport{})
		Expect(finish(older).Reason).To(Equal(run.ReasonPreempted))
		Expect(finish(newer).Status).To(Equal(run.Completed))

		h.b = h.b.reopen()
		stored, err := h.b.runs.Run(ctx, older.RunID())
		Expect(err).NotTo(HaveOccurred())
		Expect(stored.Status).To(Equal(ports.RunCancelled))
		rec, ok := h.b.record(conversation.ProviderCallID(older.RunID(), 0, 0))
		Expect(ok).To(BeTrue())
		Expect(rec.Status).To(Equal(callrecord.StatusCancelled))
	})

	It("writes an automatic compaction and the context anchors to the file", func() {
		h.model.ContextWindow = 100_000
		h.enqueue(withUsage("a long answer", 95_000), text("short summary"), withUsage("answer", 2_000))
		finish(h.start(h.prepared(userText("e1", "write a lot")), &runtest.Transport{}))
		a, err := h.b.anchors.ContextAnchor(ctx, h.conv)
		Expect(err).NotTo(HaveOccurred())
		Expect(a.ContextTokens).To(Equal(int64(95_000)), "the first call's usage anchors the estimate")

		next := h.start(h.prepared(userText("e2", "and now?")), &runtest.Transport{})
		Expect(finish(next).Status).To(Equal(run.Completed))

		h.b = h.b.reopen()
		Expect(ids(h.history())).To(Equal([]string{
			conversation.AutoSummaryID(next.RunID(), 0), "runtime:e2", conversation.AssistantID(next.RunID(), 1)}))
		a, err = h.b.anchors.ContextAnchor(ctx, h.conv)
		Expect(err).NotTo(HaveOccurred())
		Expect(a.ContextTokens).To(Equal(int64(2_000)), "the compaction reset the anchor; the next call set it again")
	})

	It("reads a tool result's image from the file's blobs into the provider request only", func() {
		png := []byte("\x89PNG fake image")
		id := ports.BlobID(png)
		Expect(h.b.blobs.Put(ctx, id, png)).To(Succeed())
		h.enqueue(tools(call("call-1", "Read", `{"path":"a.png"}`)), text("a cat"))
		t := &runtest.Transport{OnEvent: func(hd *run.Handle, ev run.Event) {
			if x, ok := ev.(run.ExecuteToolRound); ok {
				hd.ToolResult(llm.ToolResult{CallID: x.Calls[0].CallID, Content: "image",
					Image: &llm.Image{MIMEType: "image/png", BlobID: id, Path: "a.png"}})
			}
		}}
		Expect(finish(h.start(h.prepared(userText("e1", "look")), t)).Status).To(Equal(run.Completed))
		Expect(h.provider.Calls()[1].Request.Messages[2].ToolResult.Image.Data).To(Equal(png))
		h.b = h.b.reopen()
		stored, _ := h.history()[2].ToolResult()
		Expect(stored.Image.Data).To(BeEmpty())
		Expect(stored.Image.BlobID).To(Equal(id))
	})
})
