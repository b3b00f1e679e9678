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

var _ = Describe("compaction.AutomaticRequest", func() {
	var (
		history  []conversation.Message
		prompt   projection.Prompt
		settings projection.Settings
	)

	BeforeEach(func() {
		history = nil
		for i, size := range []int{60_000, 60_000, 60_000} {
			e := string(rune('a' + i))
			history = append(history, userMsg(e, strings.Repeat("q", size)), answer("run:assistant:"+e, strings.Repeat("a", size)))
		}
		prompt = projection.Prompt{Instructions: "sys", Tools: []llm.Tool{{Name: "Read"}}}
		settings = projection.Settings{Model: "m", MaxOutputTokens: 32_000, Reasoning: llm.Reasoning{Enabled: true, Effort: "high"}}
	})

	It("compaction_history_always_ends_with_a_user_message and calls no tools", func() {
		req, err := compaction.AutomaticRequest(history, prompt, settings, 1_000_000)
		Expect(err).NotTo(HaveOccurred())
		Expect(req).To(EndWithAUserMessage())
		Expect(req.Messages[len(req.Messages)-1].ID).To(Equal(conversation.CompactionInstructionID))
		Expect(req.Tools).To(BeEmpty())
		Expect(req.MaxOutputTokens).To(Equal(compaction.SummaryOutputTokens))
		Expect(req.Reasoning.Enabled).To(BeFalse())
	})

	It("compaction_history_is_trimmed_to_fit_the_context_window by dropping the oldest whole turns", func() {
		req, err := compaction.AutomaticRequest(history, prompt, settings, 80_000)
		Expect(err).NotTo(HaveOccurred())
		Expect(llm.EstimateRequest(req)).To(BeNumerically("<=", compaction.Budget(80_000)-compaction.SummaryOutputTokens))
		Expect(req.Messages[0].ID).To(Equal("runtime:b"), "turn a was dropped whole")
	})

	It("compaction_history_keeps_the_newest_turn_even_when_it_is_over_budget", func() {
		req, err := compaction.AutomaticRequest(history, prompt, settings, 20_000)
		Expect(err).NotTo(HaveOccurred())
		Expect(req.Messages[0].ID).To(Equal("runtime:c"))
		Expect(req.Messages).To(HaveLen(3))
	})

	It("compaction_history_without_a_context_window_is_untouched_apart_from_termination", func() {
		req, err := compaction.AutomaticRequest(history, prompt, settings, 0)
		Expect(err).NotTo(HaveOccurred())
		Expect(req.Messages).To(HaveLen(len(history) + 1))
	})

	It("refuses compactable history a provider would reject", func() {
		dangling, err := conversation.NewMessage(conversation.MessageSpec{ID: "x", Role: llm.RoleAssistant, Origin: conversation.OriginAssistant,
			Assistant: &llm.Assistant{Calls: []llm.ToolCall{{CallID: "c", Name: "Read"}}}})
		Expect(err).NotTo(HaveOccurred())
		_, err = compaction.AutomaticRequest([]conversation.Message{dangling}, prompt, settings, 0)
		Expect(err).To(HaveOccurred())
		_, err = compaction.ManualRequest([]conversation.Message{dangling}, prompt, settings)
		Expect(err).To(HaveOccurred())
	})
})

var _ = Describe("compaction.ManualRequest", func() {
	It("summarize_replaces_model_history_and_preserves_cursor_history: the summary call has no tools and compaction instructions", func() {
		history := []conversation.Message{userMsg("e1", "hi"), answer("run:assistant:0", "hello")}
		req, err := compaction.ManualRequest(history, projection.Prompt{Instructions: "You summarize.", Tools: []llm.Tool{{Name: "Read"}}},
			projection.Settings{Model: "m"})
		Expect(err).NotTo(HaveOccurred())
		Expect(req.Tools).To(BeEmpty())
		Expect(req.Instructions).To(Equal("You summarize."))
		Expect(req).To(EndWithAUserMessage())
		Expect(req.Messages).To(HaveLen(3))
	})
})

var _ = Describe("compaction.Turns", func() {
	It("opens one turn per run of user messages", func() {
		msgs := []llm.Message{
			projection.UserTail("ctx", "c"), projection.UserTail("u", "q"),
			{Role: llm.RoleAssistant, Assistant: &llm.Assistant{Text: "a"}},
			projection.UserTail("u2", "q2"),
		}
		Expect(compaction.Turns(msgs)).To(HaveLen(2))
	})
})

var _ = Describe("compaction.FallbackSummary", func() {
	It("stalled_auto_compaction_times_out_falls_back_and_continues: keeps the last 12 000 characters behind a heading", func() {
		msgs := []llm.Message{
			projection.UserTail("u", strings.Repeat("é", 20_000)),
			{Role: llm.RoleAssistant, Assistant: &llm.Assistant{Text: "reading", Calls: []llm.ToolCall{{Name: "Read", Arguments: []byte(`{"p":1}`)}}}},
			{Role: llm.RoleTool, ToolResult: &llm.ToolResult{Content: "file body"}},
		}
		got := compaction.FallbackSummary(msgs)
		Expect(got).To(HavePrefix("Durable recent conversation state:\n"))
		Expect([]rune(strings.TrimPrefix(got, "Durable recent conversation state:\n"))).To(HaveLen(compaction.FallbackChars))
		Expect(got).To(ContainSubstring(`[Read {"p":1}]`))
		Expect(got).To(HaveSuffix("tool: file body\n"))
	})
})
