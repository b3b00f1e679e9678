package compaction_test

import (
	"strings"

	. "github.com/onsi/ginkgo/v2"
	. "github.com/onsi/gomega"

	"keygate/domain/compaction"
	"keygate/domain/conversation"
	"keygate/domain/llm"
	"keygate/domain/projection"
)

var _ = Describe("compaction.Budget", func() {
	DescribeTable("the_reserve_scales_with_the_window: budget = window − window/10",
		func(window, budget int64) { Expect(compaction.Budget(window)).To(Equal(budget)) },
		Entry("a 200 K window leaves 180 K", int64(200_000), int64(180_000)),
		Entry("a 1 M window leaves 900 K", int64(1_000_000), int64(900_000)),
		Entry("a 100 K window leaves 90 K", int64(100_000), int64(90_000)),
		Entry("an unknown window sets no budget", int64(0), int64(0)),
	)

	DescribeTable("automatic_compaction_uses_proportional_reserve_for_every_action",
		func(estimate, window int64, needed bool) {
			Expect(compaction.Needed(estimate, window)).To(Equal(needed))
		},
		Entry("the_reserve_leaves_room_for_the_estimate_to_run_behind: 947 797 anchored tokens on a 1 M window compacts", int64(947_797), int64(1_000_000), true),
		Entry("a history at the budget does not compact", int64(180_000), int64(200_000), false),
		Entry("a history one token over the budget compacts", int64(180_001), int64(200_000), true),
		Entry("without a window nothing compacts", int64(10_000_000), int64(0), false),
	)
})

var _ = Describe("compaction.Estimate", func() {
	var req llm.Request

	BeforeEach(func() {
		req = llm.Request{Messages: []llm.Message{
			projection.UserTail("u1", strings.Repeat("old ", 50_000)),
			{ID: "a1", Role: llm.RoleAssistant, Assistant: &llm.Assistant{Text: "ok"}},
			projection.UserTail("u2", "short follow-up"),
		}}
	})

	It("real_previous_input_only_estimates_messages_added_after_the_anchor", func() {
		anchored := compaction.Estimate(req, &compaction.Anchor{ContextTokens: 1_000, MessageCount: 2})
		Expect(anchored).To(BeNumerically("<", 1_100))
		Expect(anchored).To(BeNumerically(">", 1_000))
		Expect(compaction.Estimate(req, nil)).To(BeNumerically(">", 50_000))
	})

	It("incremental_preflight_uses_conversation_anchor_across_model_switch", func() {
		anchor := &compaction.Anchor{ContextTokens: 150_000, MessageCount: 2}
		Expect(compaction.Needed(compaction.Estimate(req, anchor), 200_000)).To(BeFalse())
	})

	It("real_previous_input_compacts_after_the_new_message_crosses_the_reserve", func() {
		req.Messages[2] = projection.UserTail("u2", strings.Repeat("new ", 40_000))
		anchor := &compaction.Anchor{ContextTokens: 150_000, MessageCount: 2}
		Expect(compaction.Needed(compaction.Estimate(req, anchor), 200_000)).To(BeTrue())
	})

	It("estimates everything when the anchor covers more messages than the request has", func() {
		Expect(compaction.Estimate(req, &compaction.Anchor{ContextTokens: 1, MessageCount: 9})).To(Equal(llm.EstimateRequest(req)))
	})
})

var _ = Describe("compaction.Partition and the layouts", func() {
	var history []conversation.Message

	BeforeEach(func() {
		history = []conversation.Message{
			ctxMsg("e1", "ctx A"), userMsg("e1", "first"), answer("r1:assistant:0", "one"),
			ctxMsg("e2", "ctx B"), userMsg("e2", "second"), answer("r2:assistant:0", "two"),
			userMsg("e3", "third"),
		}
	})

	It("auto_compaction_preserves_only_the_latest_request_context", func() {
		split := compaction.Partition(history, []string{"runtime:e3"})
		Expect(split.LatestContexts).To(ConsistOfIDs("request-context:e2"))
		Expect(split.Compactable).To(ConsistOfIDs("request-context:e1", "runtime:e1", "r1:assistant:0", "runtime:e2", "r2:assistant:0"))
		Expect(split.Current).To(ConsistOfIDs("runtime:e3"))
	})

	It("lays out an automatic compaction as [latest request context, summary, current initial messages]", func() {
		summary, err := compaction.SummaryMessage(conversation.AutoSummaryID("r3", 0), "s")
		Expect(err).NotTo(HaveOccurred())
		layout := compaction.Automatic(compaction.Partition(history, []string{"runtime:e3"}), summary)
		Expect(layout).To(ConsistOfIDs("request-context:e2", "runtime:summary:auto:r3:0", "runtime:e3"))
	})

	It("keeps a context that belongs to the current turn inside the current messages", func() {
		history = append(history, ctxMsg("e4", "ctx C"), userMsg("e4", "fourth"))
		split := compaction.Partition(history, []string{"request-context:e4", "runtime:e4"})
		Expect(split.LatestContexts).To(BeEmpty())
		summary, _ := compaction.SummaryMessage("sum", "s")
		Expect(compaction.Automatic(split, summary)).To(ConsistOfIDs("sum", "request-context:e4", "runtime:e4"))
	})

	It("keeps the latest message of every context channel, in history order, and compacts the older ones", func() {
		history = []conversation.Message{
			ctxMsg("e1", "env A"), channelMsg(conversation.ContextMCP, "e1", "mcp A"), channelMsg(conversation.ContextMode, "e1", "agent"),
			userMsg("e1", "first"), answer("r1:assistant:0", "one"),
			channelMsg(conversation.ContextMode, "e2", "plan"), channelMsg(conversation.ContextEditor, "e2", "main.go"),
			userMsg("e2", "second"), answer("r2:assistant:0", "two"),
			channelMsg(conversation.ContextEditor, "e3", "util.go"), userMsg("e3", "third"),
		}
		split := compaction.Partition(history, []string{"request-context/editor:e3", "runtime:e3"})
		Expect(split.LatestContexts).To(ConsistOfIDs("request-context:e1", "request-context/mcp:e1", "request-context/mode:e2"))
		Expect(split.Compactable).To(ConsistOfIDs("request-context/mode:e1", "runtime:e1", "r1:assistant:0",
			"request-context/editor:e2", "runtime:e2", "r2:assistant:0"))
		summary, _ := compaction.SummaryMessage("sum", "s")
		Expect(compaction.Automatic(split, summary)).To(ConsistOfIDs("request-context:e1", "request-context/mcp:e1", "request-context/mode:e2",
			"sum", "request-context/editor:e3", "runtime:e3"))
	})

	It("summarize_replaces_model_history: a manual compaction keeps the summary alone", func() {
		summary, err := compaction.SummaryMessage(conversation.ManualSummaryID("r9"), "all of it")
		Expect(err).NotTo(HaveOccurred())
		Expect(compaction.Manual(summary)).To(ConsistOfIDs("runtime:summary:r9"))
		Expect(summary.Text()).To(Equal("<conversation_summary>\nall of it\n</conversation_summary>"))
		Expect(summary.Role()).To(Equal(llm.RoleUser))
	})

	It("refuses a summary that is not valid text", func() {
		_, err := compaction.SummaryMessage("s", "\xff")
		Expect(err).To(MatchError(conversation.ErrInvalidMessage))
	})
})

var _ = Describe("compaction.Preflight and compaction.Fits", func() {
	It("irreducibly_oversized_current_input_fails_before_provider_dispatch", func() {
		huge := userMsg("e1", strings.Repeat("x", 400_000))
		split := compaction.Partition([]conversation.Message{huge}, []string{huge.ID()})
		req, err := projection.Request([]conversation.Message{huge}, projection.Prompt{}, projection.Settings{})
		Expect(err).NotTo(HaveOccurred())
		_, err = compaction.Preflight(compaction.Estimate(req, nil), 100_000, split)
		Expect(err).To(MatchError(compaction.ErrIrreducible))
	})

	DescribeTable("decides whether to compact before a model call",
		func(estimate int64, compactable bool, compact bool) {
			split := compaction.Split{}
			if compactable {
				split.Compactable = []conversation.Message{userMsg("old", "old")}
			}
			got, err := compaction.Preflight(estimate, 100_000, split)
			Expect(err).NotTo(HaveOccurred())
			Expect(got).To(Equal(compact))
		},
		Entry("a fitting request is sent as it is", int64(50_000), true, false),
		Entry("an oversized request with compactable history compacts first", int64(95_000), true, true),
		Entry("a fitting request with nothing compactable is sent as it is", int64(50_000), false, false),
	)

	It("fails a compacted layout that still does not fit with ErrStillTooLarge", func() {
		Expect(compaction.Fits(95_000, 100_000)).To(MatchError(compaction.ErrStillTooLarge))
		Expect(compaction.Fits(85_000, 100_000)).To(Succeed())
	})
})

var _ = Describe("Compaction over a run's lifetime", func() {
	var (
		huge    string
		summary conversation.Message
	)

	BeforeEach(func() {
		huge = strings.Repeat("output line\n", 20_000)
		var err error
		summary, err = compaction.SummaryMessage(conversation.AutoSummaryID("run", 0), "earlier work")
		Expect(err).NotTo(HaveOccurred())
	})

	// toolTurn is a call and its large result; the provider view caps the
	// result at 64 KiB, about 18 K tokens, so two of them overflow a 25 K
	// window.
	toolTurn := func(id string) []conversation.Message {
		call, err := conversation.NewMessage(conversation.MessageSpec{ID: id + ":call", Role: llm.RoleAssistant,
			Origin: conversation.OriginAssistant, Assistant: &llm.Assistant{Calls: []llm.ToolCall{{CallID: id, Name: "Shell"}}}})
		Expect(err).NotTo(HaveOccurred())
		res, err := conversation.NewMessage(conversation.MessageSpec{ID: id + ":result", Role: llm.RoleTool,
			Origin: conversation.OriginTool, ToolResult: &llm.ToolResult{CallID: id, Content: huge}})
		Expect(err).NotTo(HaveOccurred())
		return []conversation.Message{call, res}
	}
	estimate := func(msgs []conversation.Message) int64 {
		req, err := projection.Request(msgs, projection.Prompt{}, projection.Settings{})
		Expect(err).NotTo(HaveOccurred())
		return compaction.Estimate(req, nil)
	}

	It("automatic_compaction_preflights_provider_input_and_records_rebuilt_tokens: the compacted state fits and the huge text is gone", func() {
		current := userMsg("e2", "next question")
		history := append([]conversation.Message{ctxMsg("e1", "ctx"), userMsg("e1", "first")}, answer("a", huge))
		history = append(history, current)
		Expect(compaction.Preflight(estimate(history), 25_000, compaction.Partition(history, []string{current.ID()}))).To(BeTrue())

		layout := compaction.Automatic(compaction.Partition(history, []string{current.ID()}), summary)
		Expect(compaction.Fits(estimate(layout), 25_000)).To(Succeed())
		Expect(layout).To(ConsistOfIDs("request-context:e1", summary.ID(), "runtime:e2"))
	})

	It("one_run_can_auto_compact_again_after_more_tool_output", func() {
		current := userMsg("e1", "run the build twice")
		layout := compaction.Automatic(compaction.Split{Current: []conversation.Message{current}}, summary)
		afterMoreOutput := append(append(layout, toolTurn("c2")...), toolTurn("c3")...)
		again, err := compaction.Preflight(estimate(afterMoreOutput), 25_000, compaction.Partition(afterMoreOutput, []string{current.ID()}))
		Expect(err).NotTo(HaveOccurred())
		Expect(again).To(BeTrue())
		Expect(compaction.Partition(afterMoreOutput, []string{current.ID()}).Compactable).To(ConsistOfIDs(summary.ID(), "c2:call", "c2:result", "c3:call", "c3:result"))
	})

	It("resume_action_auto_compacts_large_recovered_state_without_new_user_message", func() {
		recovered := append(append([]conversation.Message{ctxMsg("e1", "ctx"), userMsg("e1", "go")}, toolTurn("c1")...), toolTurn("c2")...)
		compact, err := compaction.Preflight(estimate(recovered), 25_000, compaction.Partition(recovered, nil))
		Expect(err).NotTo(HaveOccurred())
		Expect(compact).To(BeTrue())
	})

	It("compacted_checkpoint_survives_followup_error_and_resume_continues: the resumed history is the compacted state", func() {
		log, err := conversation.NewLog("c")
		Expect(err).NotTo(HaveOccurred())
		old := append([]conversation.Message{ctxMsg("e1", "ctx"), userMsg("e1", "go")}, toolTurn("c1")...)
		d, err := log.Apply(conversation.AppendTo(log.Head(), old...))
		Expect(err).NotTo(HaveOccurred())
		current := userMsg("e2", "more")
		_, err = log.Apply(conversation.AppendTo(d.Checkpoint, current))
		Expect(err).NotTo(HaveOccurred())
		all, err := log.Messages(log.Head().ID())
		Expect(err).NotTo(HaveOccurred())
		layout := compaction.Automatic(compaction.Partition(all, []string{current.ID()}), summary)
		compacted, err := log.Apply(conversation.ReplaceWith(log.Head().ID(), log.Root(), layout...))
		Expect(err).NotTo(HaveOccurred())

		By("a provider failure leaves the head on the compacted checkpoint; the resume reads it back")
		resumed, err := log.Messages(log.Head().ID())
		Expect(err).NotTo(HaveOccurred())
		Expect(log.Head().ID()).To(Equal(compacted.Checkpoint.ID()))
		Expect(resumed).To(ConsistOfIDs("request-context:e1", summary.ID(), "runtime:e2"))
		Expect(estimate(resumed)).To(BeNumerically("<", 1_000))
	})
})
