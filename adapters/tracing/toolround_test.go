package tracing_test

import (
	"context"

	. "github.com/onsi/ginkgo/v2"
	. "github.com/onsi/gomega"
	"go.opentelemetry.io/otel/sdk/trace/tracetest"

	"keygate/adapters/tracing"
	"keygate/domain/llm"
	"keygate/domain/toolround"
	"keygate/ports"
)

// rounds is a tool-round store that settles a round on the commit of its
// last call.
type rounds struct {
	calls     int
	committed int
}

func (r *rounds) Start(context.Context, string, string, toolround.Round) error { return nil }
func (r *rounds) Round(context.Context, string) (toolround.Round, error) {
	return toolround.Round{}, ports.ErrNotFound
}
func (r *rounds) Commit(context.Context, string, string, llm.ToolResult) (ports.ToolRoundCommit, error) {
	r.committed++
	return ports.ToolRoundCommit{Settled: r.committed == r.calls}, nil
}
func (r *rounds) Interrupt(context.Context, string, string, ...llm.ToolResult) (ports.ToolRoundCommit, error) {
	return ports.ToolRoundCommit{Settled: true}, nil
}

var _ = Describe("Tracing.ToolRounds", func() {
	var (
		rec   *tracetest.SpanRecorder
		tr    *tracing.Tracing
		store ports.ToolRoundStore
		round toolround.Round
	)
	BeforeEach(func() {
		rec = tracetest.NewSpanRecorder()
		tr = tracing.NewWithProcessor(rec, "test")
		store = tr.ToolRounds(&rounds{calls: 2})
		var err error
		round, err = toolround.New("run-1:round:0", llm.Assistant{Calls: []llm.ToolCall{
			{Index: 0, CallID: "a", Name: "Read", Arguments: []byte("{}")},
			{Index: 1, CallID: "b", Name: "Grep", Arguments: []byte("{}")},
		}})
		Expect(err).NotTo(HaveOccurred())
	})

	It("spans a round from its start to the commit that settles it, under the span of the run's context", func() {
		ctx, endTurn := tr.Turn(context.Background(), "req-1", "conv-1", "m")
		Expect(store.Start(ctx, "run-1", "cp-0", round)).To(Succeed())
		Expect(store.Start(ctx, "run-1", "cp-0", round)).To(Succeed(), "a repeated start")
		_, err := store.Commit(ctx, "run-1", round.ID(), llm.ToolResult{CallID: "a"})
		Expect(err).NotTo(HaveOccurred())
		Expect(rec.Ended()).To(BeEmpty(), "one call is still pending")
		_, err = store.Commit(ctx, "run-1", round.ID(), llm.ToolResult{CallID: "b"})
		Expect(err).NotTo(HaveOccurred())
		endTurn(nil)

		spans := rec.Ended()
		Expect(spans).To(HaveLen(2))
		Expect(spans[0].Name()).To(Equal("keygate.tool_round"))
		Expect(spans[0].Parent().SpanID()).To(Equal(spans[1].SpanContext().SpanID()))
		Expect(attr(spans[0], "keygate.tool_round_id").AsString()).To(Equal(round.ID()))
		Expect(attr(spans[0], "keygate.tool_calls").AsInt64()).To(BeEquivalentTo(2))
		Expect(attr(spans[0], "keygate.tool_round.outcome").AsString()).To(Equal("settled"))
	})

	It("ends an interrupted round's span", func() {
		Expect(store.Start(context.Background(), "run-1", "cp-0", round)).To(Succeed())
		_, err := store.Interrupt(context.Background(), "run-1", round.ID())
		Expect(err).NotTo(HaveOccurred())
		Expect(rec.Ended()).To(HaveLen(1))
		Expect(attr(rec.Ended()[0], "keygate.tool_round.outcome").AsString()).To(Equal("interrupted"))
	})

	It("ends the span of a round still pending when its run's context ends", func() {
		ctx, cancel := context.WithCancel(context.Background())
		Expect(store.Start(ctx, "run-1", "cp-0", round)).To(Succeed())
		cancel()
		Eventually(rec.Ended).Should(HaveLen(1))
		Expect(attr(rec.Ended()[0], "keygate.tool_round.outcome").AsString()).To(Equal("pending"))

		By("not tracing the round again when a later run settles it")
		_, err := store.Interrupt(context.Background(), "run-2", round.ID())
		Expect(err).NotTo(HaveOccurred())
		Consistently(rec.Ended).Should(HaveLen(1))
	})
})
