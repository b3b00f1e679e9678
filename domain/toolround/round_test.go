package toolround_test

import (
	. "github.com/onsi/ginkgo/v2"
	. "github.com/onsi/gomega"
	"github.com/onsi/gomega/types"

	"keygate/domain/conversation"
	"keygate/domain/llm"
	"keygate/domain/toolround"
)

func call(index int, id, name string) llm.ToolCall {
	return llm.ToolCall{Index: index, CallID: id, Name: name, Arguments: []byte(`{}`)}
}

func result(id, content string) llm.ToolResult {
	return llm.ToolResult{CallID: id, Content: content}
}

// BeACallWithItsResult succeeds when actual, the messages of one commit, is
// the assistant part of callID immediately followed by its result.
func BeACallWithItsResult(roundID, callID string) types.GomegaMatcher {
	return And(
		HaveLen(2),
		WithTransform(func(ms []conversation.Message) []string { return []string{ms[0].ID(), ms[1].ID()} },
			Equal([]string{conversation.ToolCallPartID(roundID, callID), conversation.ToolResultID(roundID, callID)})),
		WithTransform(func(ms []conversation.Message) string {
			a, _ := ms[0].Assistant()
			r, _ := ms[1].ToolResult()
			if len(a.Calls) != 1 || a.Calls[0].CallID != r.CallID {
				return "mismatched"
			}
			return r.CallID
		}, Equal(callID)),
	)
}

var _ = Describe("toolround.New", func() {
	DescribeTable("accepts only rounds with well-formed calls",
		func(a llm.Assistant) {
			_, err := toolround.New("run:round:0", a)
			Expect(err).To(MatchError(toolround.ErrInvalidRound))
		},
		Entry("a round holds at least one call", llm.Assistant{Text: "no tools"}),
		Entry("calls have distinct call ids", llm.Assistant{Calls: []llm.ToolCall{call(0, "c", "Read"), call(1, "c", "Read")}}),
		Entry("calls have names", llm.Assistant{Calls: []llm.ToolCall{{CallID: "c"}}}),
	)
})

var _ = Describe("Round.Commit", func() {
	var (
		round   toolround.Round
		roundID string
	)

	BeforeEach(func() {
		roundID = conversation.ToolRoundID("run", 0)
		var err error
		round, err = toolround.New(roundID, llm.Assistant{
			Text: "let me look", Thinking: "plan", Replay: &llm.ReplayState{Kind: llm.ProviderAnthropic, Value: []byte("sig")},
			Calls: []llm.ToolCall{call(0, "c0", "Read"), call(1, "c1", "Grep"), call(2, "c2", "Shell")},
		})
		Expect(err).NotTo(HaveOccurred())
	})

	It("keeps the calls in the model's original order", func() {
		Expect(round.Calls()).To(HaveEach(HaveField("Name", Not(BeEmpty()))))
		Expect(round.Calls()).To(HaveExactElements(
			HaveField("CallID", "c0"), HaveField("CallID", "c1"), HaveField("CallID", "c2")))
	})

	It("commits each result together with its own call, in completion order", func() {
		var c toolround.Commit
		var err error
		round, c, err = round.Commit(result("c2", "done"))
		Expect(err).NotTo(HaveOccurred())
		Expect(c.Messages).To(BeACallWithItsResult(roundID, "c2"))
		round, c, err = round.Commit(result("c0", "file"))
		Expect(err).NotTo(HaveOccurred())
		Expect(c.Messages).To(BeACallWithItsResult(roundID, "c0"))
		Expect(round.Completed()).To(Equal([]string{"c2", "c0"}))
		Expect(round.Pending()).To(HaveExactElements(HaveField("CallID", "c1")))
		Expect(round.Version()).To(Equal(2))
	})

	It("puts text, thinking and replay state only on the first completed call's part", func() {
		round, first, _ := round.Commit(result("c1", "x"))
		_, second, _ := round.Commit(result("c0", "y"))
		a1, _ := first.Messages[0].Assistant()
		a2, _ := second.Messages[0].Assistant()
		Expect(a1.Text).To(Equal("let me look"))
		Expect(a1.Thinking).To(Equal("plan"))
		Expect(a1.Replay).NotTo(BeNil())
		Expect(a2.Text).To(BeEmpty())
		Expect(a2.Thinking).To(BeEmpty())
		Expect(a2.Replay).To(BeNil())
	})

	It("names the result after its call when the client gave no name", func() {
		_, c, _ := round.Commit(result("c1", "x"))
		r, _ := c.Messages[1].ToolResult()
		Expect(r.Name).To(Equal("Grep"))
		Expect(c.Messages[1].ToolRoundID()).To(Equal(roundID))
	})

	It("ignores a duplicate result and leaves the round unchanged", func() {
		round, _, _ = round.Commit(result("c1", "first"))
		again, c, err := round.Commit(result("c1", "second"))
		Expect(err).NotTo(HaveOccurred())
		Expect(c.Duplicate).To(BeTrue())
		Expect(c.Messages).To(BeEmpty())
		Expect(again.Version()).To(Equal(round.Version()))
	})

	It("rejects a result for an unknown call id with ErrUnknownCall", func() {
		_, _, err := round.Commit(result("nope", "x"))
		Expect(err).To(MatchError(toolround.ErrUnknownCall))
		Expect(err.Error()).To(ContainSubstring(`"nope"`))
	})

	It("settles when the last pending call completes", func() {
		var c toolround.Commit
		for _, id := range []string{"c1", "c2", "c0"} {
			Expect(round.Settled()).To(BeFalse())
			round, c, _ = round.Commit(result(id, "ok"))
		}
		Expect(c.Settled).To(BeTrue())
		Expect(round.Settled()).To(BeTrue())
	})

	It("duplicate_tool_call_id_across_rounds_does_not_wedge_the_run", func() {
		second, err := toolround.New(conversation.ToolRoundID("run", 1), llm.Assistant{Calls: []llm.ToolCall{call(0, "c0", "Read")}})
		Expect(err).NotTo(HaveOccurred())
		round, first, err := round.Commit(result("c0", "one"))
		Expect(err).NotTo(HaveOccurred())
		_, again, err := second.Commit(result("c0", "two"))
		Expect(err).NotTo(HaveOccurred())
		Expect(again.Duplicate).To(BeFalse())
		Expect(again.Messages[0].ID()).NotTo(Equal(first.Messages[0].ID()))
		Expect(again.Messages[1].ID()).NotTo(Equal(first.Messages[1].ID()))
		Expect(round.Version()).To(Equal(1))
	})

	It("rejects a result that cannot form a valid message", func() {
		_, _, err := round.Commit(llm.ToolResult{CallID: "c0", Content: "\xff"})
		Expect(err).To(MatchError(conversation.ErrInvalidMessage))
	})
})

var _ = Describe("Round.Interrupt", func() {
	var round toolround.Round

	BeforeEach(func() {
		var err error
		round, err = toolround.New("r", llm.Assistant{Calls: []llm.ToolCall{call(0, "a", "Read"), call(1, "b", "Shell"), call(2, "c", "Grep")}})
		Expect(err).NotTo(HaveOccurred())
		round, _, err = round.Commit(result("b", "ran"))
		Expect(err).NotTo(HaveOccurred())
	})

	It("gives each pending call a synthetic error result, in original order", func() {
		settled, msgs, err := round.Interrupt()
		Expect(err).NotTo(HaveOccurred())
		Expect(settled.Settled()).To(BeTrue())
		Expect(msgs[:2]).To(BeACallWithItsResult("r", "a"))
		Expect(msgs[2:]).To(BeACallWithItsResult("r", "c"))
		r, _ := msgs[1].ToolResult()
		Expect(r.IsError).To(BeTrue())
		Expect(r.Content).To(Equal(toolround.InterruptedResult))
	})

	It("uses a detached result the transport supplied instead of the synthetic one", func() {
		_, msgs, err := round.Interrupt(llm.ToolResult{CallID: "c", Content: "finished in background"})
		Expect(err).NotTo(HaveOccurred())
		r, _ := msgs[3].ToolResult()
		Expect(r.Content).To(Equal("finished in background"))
		Expect(r.IsError).To(BeFalse())
	})

	It("fails without a partial result when a detached result is invalid", func() {
		_, msgs, err := round.Interrupt(llm.ToolResult{CallID: "c", Content: "\xff"})
		Expect(err).To(HaveOccurred())
		Expect(msgs).To(BeEmpty())
	})
})

var _ = Describe("Round.Dispatchable", func() {
	It("invalid_tool_arguments_complete_as_tool_errors", func() {
		bad := llm.ToolCall{Index: 1, CallID: "b", Name: "Read", Arguments: []byte("{}"),
			ArgumentError: "Read arguments are not valid JSON: unexpected end"}
		round, err := toolround.New("r", llm.Assistant{Calls: []llm.ToolCall{call(0, "a", "Shell"), bad}})
		Expect(err).NotTo(HaveOccurred())
		Expect(round.Dispatchable()).To(HaveExactElements(HaveField("CallID", "a")))

		res := toolround.ArgumentErrorResult(bad)
		Expect(res.IsError).To(BeTrue())
		Expect(res.Content).To(ContainSubstring("not valid JSON"))
		round, c, err := round.Commit(res)
		Expect(err).NotTo(HaveOccurred())
		Expect(c.Messages).To(BeACallWithItsResult("r", "b"))
		Expect(round.Dispatchable()).To(HaveLen(1))
	})
})

var _ = Describe("toolround.Rehydrate", func() {
	var round toolround.Round

	BeforeEach(func() {
		var err error
		round, err = toolround.New("r", llm.Assistant{Text: "t", Calls: []llm.ToolCall{call(0, "a", "Read"), call(1, "b", "Grep")}})
		Expect(err).NotTo(HaveOccurred())
		round, _, err = round.Commit(result("b", "x"))
		Expect(err).NotTo(HaveOccurred())
	})

	It("rebuilds a stored round from its plan message and completion order", func() {
		plan, err := conversation.DecodeMessage(round.Plan().Encode())
		Expect(err).NotTo(HaveOccurred())
		back, err := toolround.Rehydrate(plan, round.Completed())
		Expect(err).NotTo(HaveOccurred())
		Expect(back.ID()).To(Equal("r"))
		Expect(back.Completed()).To(Equal([]string{"b"}))
		Expect(back.Pending()).To(HaveExactElements(HaveField("CallID", "a")))
	})

	DescribeTable("refuses stored state the round rules forbid",
		func(plan func() conversation.Message, completed []string, want error) {
			_, err := toolround.Rehydrate(plan(), completed)
			Expect(err).To(MatchError(want))
		},
		Entry("a completed call belongs to the round", func() conversation.Message { return round.Plan() },
			[]string{"zz"}, toolround.ErrUnknownCall),
		Entry("a call completes once", func() conversation.Message { return round.Plan() },
			[]string{"a", "a"}, toolround.ErrInvalidRound),
		Entry("a plan is an assistant message", func() conversation.Message {
			m, _ := conversation.NewText("r", llm.RoleUser, conversation.OriginUser, "x")
			return m
		}, nil, toolround.ErrInvalidRound),
		Entry("a plan holds calls", func() conversation.Message {
			m, _ := conversation.NewMessage(conversation.MessageSpec{ID: "r", Role: llm.RoleAssistant,
				Origin: conversation.OriginAssistant, Assistant: &llm.Assistant{Text: "t"}})
			return m
		}, nil, toolround.ErrInvalidRound),
	)
})

var _ = Describe("Round.Commit and error flags", func() {
	It("tool_success_is_not_inferred_from_debug_text", func() {
		round, err := toolround.New("r", llm.Assistant{Calls: []llm.ToolCall{call(0, "w", "Write")}})
		Expect(err).NotTo(HaveOccurred())
		_, c, err := round.Commit(llm.ToolResult{CallID: "w", Content: "Wrote file. Error handling added."})
		Expect(err).NotTo(HaveOccurred())
		r, _ := c.Messages[1].ToolResult()
		Expect(r.IsError).To(BeFalse())
	})
})
