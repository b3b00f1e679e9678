package run_test

import (
	"strings"
	"time"

	. "github.com/onsi/ginkgo/v2"
	. "github.com/onsi/gomega"

	"keygate/adapters/provider/providertest"
	"keygate/app/run"
	"keygate/app/run/runtest"
	"keygate/domain/compaction"
	"keygate/domain/conversation"
	"keygate/domain/llm"
)

// withUsage is a text turn reporting input tokens.
func withUsage(s string, input int64) providertest.Turn {
	t := text(s)
	t.Usage.Input = input
	return t
}

// compactionKinds lists compaction-related events in order.
func compactionKinds(evs []run.Event) []string {
	var out []string
	for _, ev := range evs {
		switch x := ev.(type) {
		case run.UsageSnapshot:
			if x.Tokens == 0 {
				out = append(out, "snapshot 0")
			} else {
				out = append(out, "snapshot")
			}
		case run.CompactionStarted:
			out = append(out, "started")
		case run.CompactionCompleted:
			out = append(out, "completed")
		case run.MessagesCommitted:
			if x.Cause.Kind == run.CauseCompaction {
				out = append(out, "committed")
			}
		}
	}
	return out
}

func requestContext(event, text string) conversation.Message {
	m, err := conversation.NewText(conversation.RequestContextID(event), llm.RoleUser, conversation.OriginPrompt, text)
	Expect(err).NotTo(HaveOccurred())
	return m
}

var _ = Describe("Engine compaction", func() {
	var h *harness
	BeforeEach(func() { h = newHarness(memoryBackend, run.Limits{}) })

	When("the user sends /summarize", func() {
		var compact *run.Handle
		BeforeEach(func() {
			h.enqueue(text("hello"), text("We greeted each other."), text("fresh start"))
			finish(h.start(h.prepared(userText("e1", "hi")), &runtest.Transport{}))
			p := h.prepared()
			p.Action = run.Action{Kind: run.ActionCompact}
			compact = h.start(p, &runtest.Transport{})
			Expect(finish(compact).Status).To(Equal(run.Completed))
		})

		It("makes a summary call without tools that ends with the compaction instruction", func() {
			req := h.provider.Calls()[1].Request
			Expect(req.Tools).To(BeEmpty())
			last := req.Messages[len(req.Messages)-1]
			Expect(last.ID).To(Equal(conversation.CompactionInstructionID))
			Expect(texts(req.Messages)).To(Equal([]string{"user: hi", "assistant: hello", "user: " + compaction.ManualInstruction}))
		})

		It("replaces the model history by one summary message", func() {
			msgs := h.history()
			Expect(ids(msgs)).To(Equal([]string{conversation.ManualSummaryID(compact.RunID())}))
			Expect(msgs[0].Text()).To(Equal("<conversation_summary>\nWe greeted each other.\n</conversation_summary>"))
		})

		It("sends only the summary and the new message on the next turn", func() {
			finish(h.start(h.prepared(userText("e2", "next")), &runtest.Transport{}))
			Expect(texts(h.provider.Calls()[2].Request.Messages)).To(Equal([]string{
				"user: <conversation_summary>\nWe greeted each other.\n</conversation_summary>", "user: next"}))
		})
	})

	When("the last usage is over the budget of a 100 K window", func() {
		var (
			t    *runtest.Transport
			next *run.Handle
		)
		BeforeEach(func() {
			huge := strings.Repeat("a very long answer ", 2000)
			h.enqueue(withUsage(huge, 95_000), text("short summary"), text("answer"))
			finish(h.start(h.prepared(userText("e1", "write a lot")), &runtest.Transport{}))
			h.model.ContextWindow = 100_000
			t = &runtest.Transport{}
			next = h.start(h.prepared(userText("e2", "and now?")), t)
			Expect(finish(next).Status).To(Equal(run.Completed))
			Eventually(t.Done()).Should(BeClosed())
		})

		It("shows the estimate, the compaction and a reset count before the model call", func() {
			Expect(compactionKinds(t.Events())).To(Equal([]string{"snapshot", "started", "committed", "completed", "snapshot 0"}))
			snap := eventsOf[run.UsageSnapshot](t.Events())[0]
			Expect(snap.Tokens).To(BeNumerically(">", 90_000))
			Expect(h.clock.Waiters()).To(BeZero(), "the compaction deadline is released")
		})

		It("sends the summary and the current input instead of the huge answer", func() {
			req := h.provider.Calls()[2].Request
			Expect(texts(req.Messages)).To(Equal([]string{
				"user: <conversation_summary>\nshort summary\n</conversation_summary>", "user: and now?"}))
			Expect(llm.EstimateRequest(req)).To(BeNumerically("<", 90_000))
		})

		It("stores the compacted layout", func() {
			Expect(ids(h.history())).To(Equal([]string{
				conversation.AutoSummaryID(next.RunID(), 0), "runtime:e2", conversation.AssistantID(next.RunID(), 1)}))
		})
	})

	When("a large first turn on one model is followed by a short one on a model with a 200 K window", func() {
		It("uses the conversation's anchor and does not compact", func() {
			h.model.ContextWindow = 1_000_000
			h.enqueue(withUsage("big", 150_000), text("small"))
			finish(h.start(h.prepared(userText("e1", "lots of context")), &runtest.Transport{}))
			h.model.ContextWindow, h.model.Settings.Model = 200_000, "other-model"
			t := &runtest.Transport{}
			Expect(finish(h.start(h.prepared(userText("e2", "short")), t)).Status).To(Equal(run.Completed))
			Eventually(t.Done()).Should(BeClosed())
			Expect(eventsOf[run.CompactionStarted](t.Events())).To(BeEmpty())
			Expect(h.requestBodies()).To(HaveLen(2))
		})
	})

	When("an anchored 947 797 tokens sit in a 1 M window", func() {
		It("compacts, because the budget keeps a proportional reserve", func() {
			h.model.ContextWindow = 1_000_000
			h.enqueue(withUsage("big", 947_797), text("summary"), text("ok"))
			finish(h.start(h.prepared(userText("e1", "lots")), &runtest.Transport{}))
			t := &runtest.Transport{}
			finish(h.start(h.prepared(userText("e2", "more")), t))
			Eventually(t.Done()).Should(BeClosed())
			Expect(eventsOf[run.CompactionStarted](t.Events())).To(HaveLen(1))
		})
	})

	When("the first message alone does not fit", func() {
		It("fails before any provider request", func() {
			h.model.ContextWindow = 100_000
			o := finish(h.start(h.prepared(userText("e1", strings.Repeat("x", 400_000))), &runtest.Transport{}))
			Expect(o.Status).To(Equal(run.Failed))
			Expect(o.Failure.Category).To(Equal(run.CategoryProtocol))
			Expect(o.Failure.Err).To(MatchError(compaction.ErrIrreducible))
			Expect(h.requestBodies()).To(BeEmpty())
		})
	})

	When("the provider refuses because the prompt is too long", func() {
		var t *runtest.Transport
		BeforeEach(func() {
			h.enqueue(text("hello"))
			finish(h.start(h.prepared(userText("e1", "hi")), &runtest.Transport{}))
			h.server.Enqueue(providertest.Status(400,
				`{"error":{"message":"prompt is too long: 210000 tokens > 200000 maximum","type":"invalid_request_error"}}`))
			h.enqueue(text("summary of hi"), text("fits now"))
			t = &runtest.Transport{}
			Expect(finish(h.start(h.prepared(userText("e2", "next")), t)).Status).To(Equal(run.Completed))
		})

		It("makes one summary call without tools, then retries with tools and the summary", func() {
			calls := h.provider.Calls()
			Expect(calls).To(HaveLen(4))
			Expect(calls[2].Request.Tools).To(BeEmpty())
			Expect(calls[2].Request.Messages[len(calls[2].Request.Messages)-1].ID).To(Equal(conversation.CompactionInstructionID))
			Expect(calls[3].Request.Tools).NotTo(BeEmpty())
			Expect(texts(calls[3].Request.Messages)).To(Equal([]string{
				"user: <conversation_summary>\nsummary of hi\n</conversation_summary>", "user: next"}))
		})
	})

	When("the provider refuses again after the compaction", func() {
		It("fails instead of compacting a second time", func() {
			h.enqueue(text("hello"))
			finish(h.start(h.prepared(userText("e1", "hi")), &runtest.Transport{}))
			tooLong := `{"error":{"message":"prompt is too long","type":"invalid_request_error"}}`
			h.server.Enqueue(providertest.Status(400, tooLong))
			h.enqueue(text("summary"))
			h.server.Enqueue(providertest.Status(400, tooLong))
			o := finish(h.start(h.prepared(userText("e2", "next")), &runtest.Transport{}))
			Expect(o.Status).To(Equal(run.Failed))
			Expect(o.Failure.Category).To(Equal(run.CategoryProvider))
			Expect(h.requestBodies()).To(HaveLen(4))
		})
	})

	When("an automatic compaction is followed by a provider failure", func() {
		It("resumes from the compacted state with the count reset", func() {
			h.enqueue(withUsage(strings.Repeat("old content ", 3000), 95_000))
			finish(h.start(h.prepared(userText("e1", "first")), &runtest.Transport{}))
			h.model.ContextWindow = 100_000
			h.enqueue(text("compact summary"))
			h.server.Enqueue(providertest.Status(401, `{"error":{"message":"bad key","type":"invalid_request_error"}}`))
			failed := h.start(h.prepared(userText("e2", "second")), &runtest.Transport{})
			Expect(finish(failed).Status).To(Equal(run.Failed))

			h.enqueue(text("resumed"))
			p := h.prepared()
			p.Action = run.Action{Kind: run.ActionResume, FromRunID: failed.RunID()}
			t := &runtest.Transport{}
			Expect(finish(h.start(p, t)).Status).To(Equal(run.Completed))
			Eventually(t.Done()).Should(BeClosed())
			Expect(eventsOf[run.CompactionStarted](t.Events())).To(BeEmpty())
			last := h.provider.Calls()[len(h.provider.Calls())-1].Request
			Expect(texts(last.Messages)).To(Equal([]string{
				"user: <conversation_summary>\ncompact summary\n</conversation_summary>", "user: second"}))
		})
	})

	When("a resumed conversation is over the window", func() {
		It("compacts before the model call without a new user message", func() {
			h.enqueue(providertest.Turn{Calls: []providertest.Call{call("call-1", "Read", `{}`)},
				Usage: providertest.Usage{Input: 95_000}})
			h.server.Enqueue(providertest.Status(401, `{"error":{"message":"bad key","type":"invalid_request_error"}}`))
			failed := h.start(h.prepared(userText("e1", "go")), &runtest.Transport{OnEvent: answerCalls})
			Expect(finish(failed).Status).To(Equal(run.Failed))

			h.model.ContextWindow = 100_000
			h.enqueue(text("summary of the work"), text("continuing"))
			p := h.prepared()
			p.Action = run.Action{Kind: run.ActionResume, FromRunID: failed.RunID()}
			t := &runtest.Transport{}
			Expect(finish(h.start(p, t)).Status).To(Equal(run.Completed))
			Eventually(t.Done()).Should(BeClosed())
			Expect(compactionKinds(t.Events())[:2]).To(Equal([]string{"snapshot", "started"}))
			calls := h.provider.Calls()
			Expect(calls[2].Request.Tools).To(BeEmpty())
			Expect(texts(calls[3].Request.Messages)).To(Equal([]string{
				"user: <conversation_summary>\nsummary of the work\n</conversation_summary>"}))
		})
	})

	DescribeTable("a summary call that gives no summary falls back to the durable recent state and the run continues",
		func(reply providertest.Reply, stalls bool) {
			h.enqueue(withUsage("old answer", 95_000))
			finish(h.start(h.prepared(userText("e1", "first")), &runtest.Transport{}))
			h.model.ContextWindow = 100_000
			h.server.Enqueue(reply)
			h.enqueue(text("went on"))
			t := &runtest.Transport{}
			hd := h.start(h.prepared(userText("e2", "second")), t)
			if stalls {
				Eventually(h.server.Requests).Should(HaveLen(2))
				Eventually(h.clock.Waiters).Should(Equal(1))
				h.clock.Advance(30 * time.Second)
			}
			Expect(finish(hd).Status).To(Equal(run.Completed))
			Eventually(t.Done()).Should(BeClosed())
			Expect(eventsOf[run.CompactionCompleted](t.Events())).To(Equal([]run.CompactionCompleted{{Fallback: true}}))
			Expect(h.history()[0].Text()).To(ContainSubstring("Durable recent conversation state"))
			Expect(h.history()[0].Text()).To(ContainSubstring("old answer"))
			Expect(h.requestBodies()).To(HaveLen(3), "the summary call is not retried")
		},
		Entry("it never answers within the 30 s deadline", headersStalled(), true),
		Entry("it fails", providertest.Status(500, serverError), false),
		Entry("it calls a tool", providertest.Stream(providertest.ChatSSE(tools(call("c", "Read", `{}`)))), false),
		Entry("it answers with nothing", providertest.Stream(providertest.ChatSSE(providertest.Turn{})), false),
	)

	When("history holds two request contexts", func() {
		It("compacts the older and keeps the latest verbatim", func() {
			h.enqueue(withUsage("answer a", 95_000), text("summary"), text("answer b"))
			finish(h.start(h.prepared(requestContext("a", "<user_info>A</user_info>"), userText("a", "first")), &runtest.Transport{}))
			h.model.ContextWindow = 100_000
			next := h.start(h.prepared(requestContext("b", "<user_info>B</user_info>"), userText("b", "second")), &runtest.Transport{})
			Expect(finish(next).Status).To(Equal(run.Completed))
			Expect(ids(h.history())).To(Equal([]string{
				conversation.AutoSummaryID(next.RunID(), 0), "request-context:b", "runtime:b",
				conversation.AssistantID(next.RunID(), 1)}))
		})
	})

	When("a run's tool outputs overflow a 16 K window twice", func() {
		It("compacts twice within the run", func() {
			// Each output is capped to 64 KiB (about 18 K tokens) in the request.
			h.model.ContextWindow = 16_000
			big := strings.Repeat("0123456789", 9_000)
			h.enqueue(tools(call("call-1", "Read", `{}`)), text("summary one"),
				tools(call("call-2", "Read", `{}`)), text("summary two"), text("finished"))
			t := &runtest.Transport{OnEvent: answer(func(llm.ToolCall) string { return big })}
			o := finish(h.start(h.prepared(userText("e1", "go")), t))
			Expect(o.Status).To(Equal(run.Completed), "%+v", o)
			calls := h.provider.Calls()
			Expect(calls).To(HaveLen(5))
			var withoutTools []int
			for i, c := range calls {
				if len(c.Request.Tools) == 0 {
					withoutTools = append(withoutTools, i)
				}
			}
			Expect(withoutTools).To(Equal([]int{1, 3}))
		})
	})
})
