package modelcycle_test

import (
	. "github.com/onsi/ginkgo/v2"
	. "github.com/onsi/gomega"
	"github.com/onsi/gomega/types"

	"keygate/domain/llm"
	"keygate/domain/modelcycle"
)

// Event shorthands, so a stream reads like the grammar.
var (
	start     = llm.Event{Kind: llm.EventStart, ModelCallID: "resp_1"}
	textStart = llm.Event{Kind: llm.EventTextStart}
	textEnd   = llm.Event{Kind: llm.EventTextEnd}
	thinkOn   = llm.Event{Kind: llm.EventThinkingStart}
	thinkOff  = llm.Event{Kind: llm.EventThinkingEnd}
	stop      = llm.Event{Kind: llm.EventDone, Finish: llm.FinishStop}
	toolUse   = llm.Event{Kind: llm.EventDone, Finish: llm.FinishToolUse}
	length    = llm.Event{Kind: llm.EventDone, Finish: llm.FinishLength}
)

func text(s string) llm.Event  { return llm.Event{Kind: llm.EventTextDelta, Text: s} }
func think(s string) llm.Event { return llm.Event{Kind: llm.EventThinkingDelta, Text: s} }
func callStart(i int, id, name string) llm.Event {
	return llm.Event{Kind: llm.EventToolCallStart, Index: i, CallID: id, Name: name}
}
func args(i int, s string) llm.Event {
	return llm.Event{Kind: llm.EventToolCallArgumentsDelta, Index: i, Text: s}
}
func callEnd(i int) llm.Event { return llm.Event{Kind: llm.EventToolCallEnd, Index: i} }
func usage(out int64) llm.Event {
	return llm.Event{Kind: llm.EventUsage, Usage: &llm.Usage{Output: out, Known: llm.UsageOutput}}
}
func replay() llm.Event {
	return llm.Event{Kind: llm.EventReplayState, Replay: &llm.ReplayState{Kind: llm.ProviderOpenAIResponses, Value: []byte("r")}}
}

// consume feeds events until the first grammar error and ends the cycle.
func consume(events ...llm.Event) (modelcycle.Result, error) {
	c := modelcycle.New()
	for _, e := range events {
		if err := c.Apply(e); err != nil {
			_, _ = c.End()
			return c.End()
		}
	}
	return c.End()
}

// BeRejectedAs succeeds when actual, the error of consume, is a grammar
// error whose reason contains the given text.
func BeRejectedAs(reason string) types.GomegaMatcher {
	return And(MatchError(modelcycle.ErrGrammar), MatchError(ContainSubstring(reason)))
}

var _ = Describe("Cycle", func() {
	It("accumulates text, thinking, calls in index order, replay state and usage of a valid stream", func() {
		r, err := consume(start, thinkOn, think("let me "), think("see"), thinkOff,
			textStart, text("reading "), text("both"), textEnd,
			callStart(1, "c1", "Grep"), callStart(0, "c0", "Read"),
			args(0, `{"path":`), args(1, `{"q":"x"}`), args(0, `"/a"}`), callEnd(1), callEnd(0),
			replay(), usage(9), toolUse)
		Expect(err).NotTo(HaveOccurred())
		Expect(r.ModelCallID).To(Equal("resp_1"))
		Expect(r.Assistant.Thinking).To(Equal("let me see"))
		Expect(r.Assistant.Text).To(Equal("reading both"))
		Expect(r.Assistant.Calls).To(HaveExactElements(
			And(HaveField("CallID", "c0"), HaveField("Arguments", []byte(`{"path":"/a"}`))),
			And(HaveField("CallID", "c1"), HaveField("Arguments", []byte(`{"q":"x"}`)))))
		Expect(r.Assistant.Replay).NotTo(BeNil())
		Expect(r.Usage.Output).To(Equal(int64(9)))
		Expect(r.Finish).To(Equal(llm.FinishToolUse))
	})

	It("accepts several text blocks in one cycle", func() {
		r, err := consume(start, textStart, text("a"), textEnd, textStart, text("b"), textEnd, stop)
		Expect(err).NotTo(HaveOccurred())
		Expect(r.Assistant.Text).To(Equal("ab"))
	})

	DescribeTable("rejects events out of grammar order as a protocol failure",
		func(reason string, events ...llm.Event) {
			_, err := consume(events...)
			Expect(err).To(BeRejectedAs(reason))
		},
		Entry("exactly one start comes before any content", "before start", textStart),
		Entry("a second start is rejected", "duplicate start", start, start),
		Entry("a text delta needs an open text block", "delta outside", start, text("x")),
		Entry("a text block cannot start twice", "already open", start, textStart, textStart),
		Entry("a text block cannot end before it starts", "end without a start", start, textEnd),
		Entry("a thinking delta needs an open thinking block", "delta outside", start, think("x")),
		Entry("a tool call needs a fresh index", "index reused", start, callStart(0, "a", "Read"), callEnd(0), callStart(0, "b", "Read")),
		Entry("a tool call needs a fresh call id", "id missing or reused", start, callStart(0, "a", "Read"), callStart(1, "a", "Read")),
		Entry("a tool call needs a call id", "id missing or reused", start, callStart(0, "", "Read")),
		Entry("a tool call needs a name", "without a name", start, callStart(0, "a", "")),
		Entry("arguments after the call ended are rejected", "unknown or ended", start, callStart(0, "a", "Read"), callEnd(0), args(0, "{}")),
		Entry("arguments for an unknown index are rejected", "unknown or ended", start, args(3, "{}")),
		Entry("a tool call ends once", "unknown or ended", start, callStart(0, "a", "Read"), callEnd(0), callEnd(0)),
		Entry("at most one replay state arrives", "at most one replay", start, replay(), replay()),
		Entry("a replay state carries a value", "at most one replay", start, llm.Event{Kind: llm.EventReplayState}),
		Entry("at most one usage arrives", "at most one usage", start, usage(1), usage(2)),
		Entry("done waits for an open text block", "block is open", start, textStart, stop),
		Entry("done waits for an open thinking block", "block is open", start, thinkOn, stop),
		Entry("done waits for an open tool call", "block is open", start, callStart(0, "a", "Read"), toolUse),
		Entry("nothing follows done", "after done", start, stop, textStart),
		Entry("unknown event kinds are rejected", "unknown event kind", start, llm.Event{Kind: 99}),
		Entry("tool use needs a tool call", "disagree", start, toolUse),
		Entry("tool calls need a tool-use finish", "disagree", start, callStart(0, "a", "Read"), callEnd(0), stop),
		Entry("a finish reason is known", "unknown finish", start, llm.Event{Kind: llm.EventDone}),
	)

	It("keeps refusing events after a grammar error", func() {
		c := modelcycle.New()
		Expect(c.Apply(textStart)).To(MatchError(modelcycle.ErrGrammar))
		Expect(c.Apply(start)).To(MatchError(modelcycle.ErrGrammar))
	})

	It("fails a stream that ends before Done as a provider failure and keeps its partial output", func() {
		r, err := consume(start, textStart, text("partial "))
		Expect(err).To(MatchError(modelcycle.ErrEOFBeforeDone))
		Expect(r.Assistant.Text).To(Equal("partial "))
	})

	It("fails a Length finish as truncated even with complete tool calls", func() {
		r, err := consume(start, callStart(0, "a", "Read"), callEnd(0), usage(3), length)
		Expect(err).To(MatchError(modelcycle.ErrTruncated))
		Expect(r.Usage).NotTo(BeNil())
	})

	It("fails a content-filter finish as filtered, naming the filter's categories, and keeps what streamed before it", func() {
		done := llm.Event{Kind: llm.EventDone, Finish: llm.FinishContentFilter,
			Filter: []llm.FilterHit{{Category: "violence", Severity: "high"}}}
		r, err := consume(start, textStart, text("Once upon"), llm.Event{Kind: llm.EventTextEnd}, done)
		Expect(err).To(MatchError(modelcycle.ErrContentFiltered))
		Expect(err.Error()).To(ContainSubstring("violence (high)"))
		Expect(modelcycle.IsContentFiltered(err)).To(BeTrue())
		Expect(r.Assistant.Text).To(Equal("Once upon"))
		Expect(r.Filter).To(Equal([]llm.FilterHit{{Category: "violence", Severity: "high"}}))
	})

	It("provider_tool_names_are_normalized_when_received", func() {
		r, err := consume(start, callStart(0, "a", "multi_tool_use.parallel"), callEnd(0), toolUse)
		Expect(err).NotTo(HaveOccurred())
		Expect(r.Assistant.Calls[0].Name).To(Equal("multi_tool_use_parallel"))
	})

	It("malformed_provider_tool_json_is_kept_as_a_tool_validation_error", func() {
		r, err := consume(start, callStart(0, "a", "Read"), args(0, `{"path":`), callEnd(0), toolUse)
		Expect(err).NotTo(HaveOccurred(), "a malformed argument never fails the cycle")
		Expect(string(r.Assistant.Calls[0].Arguments)).To(Equal("{}"))
		Expect(r.Assistant.Calls[0].ArgumentError).To(ContainSubstring("not valid JSON"))
	})

	It("tool_call_with_empty_arguments_does_not_fail_the_run", func() {
		r, err := consume(start, callStart(0, "a", "ListDir"), callEnd(0), toolUse)
		Expect(err).NotTo(HaveOccurred())
		Expect(string(r.Assistant.Calls[0].Arguments)).To(Equal("{}"))
		Expect(r.Assistant.Calls[0].ArgumentError).To(BeEmpty())
	})
})

var _ = Describe("ParseArguments", func() {
	DescribeTable("never fails the cycle and says what was wrong",
		func(in, wantArgs, wantErr string) {
			got, argErr := modelcycle.ParseArguments("Read", in)
			Expect(string(got)).To(Equal(wantArgs))
			if wantErr == "" {
				Expect(argErr).To(BeEmpty())
			} else {
				Expect(argErr).To(HavePrefix(wantErr))
			}
		},
		Entry("empty arguments become {}", "", "{}", ""),
		Entry("whitespace arguments become {}", "  \n ", "{}", ""),
		Entry("an object is kept as the model sent it", ` {"a": 1.50} `, `{"a": 1.50}`, ""),
		Entry("valid JSON that is not an object becomes {} with an argument error", `[1,2]`, "{}", "Read arguments must be a JSON object"),
		Entry("invalid JSON becomes {} with an argument error", `{"a":`, "{}", "Read arguments are not valid JSON: "),
		Entry("trailing data after an object is invalid JSON", `{}{}`, "{}", "Read arguments are not valid JSON: trailing data"),
	)
})
