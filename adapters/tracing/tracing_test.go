package tracing_test

import (
	"context"
	"errors"
	"net/http"
	"net/http/httptest"

	. "github.com/onsi/ginkgo/v2"
	. "github.com/onsi/gomega"
	"go.opentelemetry.io/otel/attribute"
	"go.opentelemetry.io/otel/codes"
	sdktrace "go.opentelemetry.io/otel/sdk/trace"
	"go.opentelemetry.io/otel/sdk/trace/tracetest"

	"keygate/adapters/tracing"
	"keygate/domain/llm"
	"keygate/ports"
)

type oneShot struct {
	events []llm.Event
	err    error
}

func (o oneShot) Stream(context.Context, ports.ModelCall) (ports.ModelStream, error) {
	if o.err != nil {
		return nil, o.err
	}
	return &events{list: o.events}, nil
}

type events struct {
	list []llm.Event
	i    int
}

func (e *events) Next() bool       { e.i++; return e.i <= len(e.list) }
func (e *events) Event() llm.Event { return e.list[e.i-1] }
func (e *events) Err() error       { return nil }
func (e *events) Close() error     { return nil }

func attr(s sdktrace.ReadOnlySpan, key string) attribute.Value {
	for _, kv := range s.Attributes() {
		if string(kv.Key) == key {
			return kv.Value
		}
	}
	return attribute.Value{}
}

var _ = Describe("Tracing", func() {
	var (
		rec  *tracetest.SpanRecorder
		tr   *tracing.Tracing
		call = ports.ModelCall{CallID: "run-1:0", RunID: "run-1", Endpoint: ports.Endpoint{Kind: llm.ProviderOpenAIResponses, APIKey: "sk-secret"},
			Request: llm.Request{Model: "gpt-x"}}
	)
	BeforeEach(func() {
		rec = tracetest.NewSpanRecorder()
		tr = tracing.NewWithProcessor(rec, "test")
	})
	drain := func(ctx context.Context, p ports.ModelProvider) {
		s, err := p.Stream(ctx, call)
		if err != nil {
			return
		}
		for s.Next() {
		}
		_ = s.Close()
	}

	It("makes one trace per turn with a span per model call and tool round inside it", func() {
		ctx, endTurn := tr.Turn(context.Background(), "run-1", "conv-1", "gpt-x")
		p := tr.Provider(oneShot{events: []llm.Event{
			{Kind: llm.EventStart}, {Kind: llm.EventTextDelta, Text: "hi"},
			{Kind: llm.EventToolCallStart, Index: 0, CallID: "t1", Name: "read_file"},
			{Kind: llm.EventUsage, Usage: &llm.Usage{Input: 10, CacheRead: 90, Output: 5}},
			{Kind: llm.EventDone, Finish: llm.FinishToolUse},
		}})
		drain(ctx, p)
		roundCtx, endRound := tr.ToolRound(ctx, "round-1", 1)
		endRound(nil)
		drain(roundCtx, p)
		endTurn(nil)

		spans := rec.Ended()
		Expect(spans).To(HaveLen(4))
		turn := spans[3]
		Expect(turn.Name()).To(Equal("keygate.turn"))
		for _, s := range spans[:3] {
			Expect(s.SpanContext().TraceID()).To(Equal(turn.SpanContext().TraceID()))
		}
		first := spans[0]
		Expect(first.Name()).To(Equal("keygate.model_call"))
		Expect(first.Parent().SpanID()).To(Equal(turn.SpanContext().SpanID()))
		Expect(attr(first, "gen_ai.request.model").AsString()).To(Equal("gpt-x"))
		Expect(attr(first, "gen_ai.usage.input_tokens").AsInt64()).To(BeEquivalentTo(100))
		Expect(attr(first, "gen_ai.response.finish_reason").AsString()).To(Equal("tool_use"))
		Expect(attr(first, "keygate.tool_calls").AsInt64()).To(BeEquivalentTo(1))
		Expect(first.Events()).To(ContainElement(HaveField("Name", "first_token")))
		Expect(spans[1].Name()).To(Equal("keygate.tool_round"))
		Expect(spans[2].Parent().SpanID()).To(Equal(spans[1].SpanContext().SpanID()), "a call made in a tool round nests under it")
	})

	It("never records the API key", func() {
		drain(context.Background(), tr.Provider(oneShot{events: []llm.Event{{Kind: llm.EventDone}}}))
		for _, kv := range rec.Ended()[0].Attributes() {
			Expect(kv.Value.String()).NotTo(ContainSubstring("sk-secret"))
		}
	})

	It("marks a failed call with its error class", func() {
		drain(context.Background(), tr.Provider(oneShot{err: &llm.ProviderError{Class: llm.ErrorRateLimit, Status: 429}}))
		s := rec.Ended()[0]
		Expect(s.Status().Code).To(Equal(codes.Error))
		Expect(attr(s, "error.type").AsString()).To(Equal("rate_limit"))
	})

	It("marks a failed turn", func() {
		_, end := tr.Turn(context.Background(), "run-2", "conv-2", "gpt-x")
		end(errors.New("budget reached"))
		Expect(rec.Ended()[0].Status().Code).To(Equal(codes.Error))
	})

	It("exports each turn's spans to the configured URL, whatever the environment says", func() {
		GinkgoT().Setenv("OTEL_EXPORTER_OTLP_ENDPOINT", "http://127.0.0.1:1")
		paths := make(chan string, 8)
		collector := httptest.NewServer(http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
			paths <- r.Method + " " + r.URL.Path
			w.WriteHeader(http.StatusOK)
		}))
		DeferCleanup(collector.Close)
		on, err := tracing.New(context.Background(), collector.URL+"/otlp/v1/traces", "test")
		Expect(err).NotTo(HaveOccurred())
		_, end := on.Turn(context.Background(), "r", "c", "m")
		end(nil)
		Expect(on.Shutdown(context.Background())).To(Succeed(), "shutdown flushes the batch")
		Eventually(paths).Should(Receive(Equal("POST /otlp/v1/traces")))
	})

	It("is a no-op without an endpoint", func() {
		off, err := tracing.New(context.Background(), "", "test")
		Expect(err).NotTo(HaveOccurred())
		ctx, end := off.Turn(context.Background(), "r", "c", "m")
		end(nil)
		drain(ctx, off.Provider(oneShot{events: []llm.Event{{Kind: llm.EventDone}}}))
		Expect(off.Shutdown(context.Background())).To(Succeed())
	})
})
