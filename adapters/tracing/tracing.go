package tracing

import (
	"context"
	"fmt"

	"go.opentelemetry.io/otel/attribute"
	"go.opentelemetry.io/otel/codes"
	"go.opentelemetry.io/otel/exporters/otlp/otlptrace/otlptracehttp"
	"go.opentelemetry.io/otel/sdk/resource"
	sdktrace "go.opentelemetry.io/otel/sdk/trace"
	semconv "go.opentelemetry.io/otel/semconv/v1.37.0"
	"go.opentelemetry.io/otel/trace"
	"go.opentelemetry.io/otel/trace/noop"
)

// Tracing starts Keygate's spans.
type Tracing struct {
	tracer   trace.Tracer
	shutdown func(context.Context) error
}

// New returns tracing that exports over OTLP/HTTP to tracesURL (the full
// URL, .../v1/traces), and a no-op tracer when it is empty. The exporter
// reads OpenTelemetry's other standard variables (headers, TLS,
// compression, timeout) itself, and the SDK its sampler. version is
// Keygate's version for the service resource.
func New(ctx context.Context, tracesURL, version string) (*Tracing, error) {
	if tracesURL == "" {
		return &Tracing{tracer: noop.NewTracerProvider().Tracer("keygate"), shutdown: func(context.Context) error { return nil }}, nil
	}
	exp, err := otlptracehttp.New(ctx, otlptracehttp.WithEndpointURL(tracesURL))
	if err != nil {
		return nil, fmt.Errorf("otlp trace exporter: %w", err)
	}
	return NewWithProcessor(sdktrace.NewBatchSpanProcessor(exp), version), nil
}

// NewWithProcessor returns tracing that hands every span to sp (specs use
// an in-memory recorder).
func NewWithProcessor(sp sdktrace.SpanProcessor, version string) *Tracing {
	tp := sdktrace.NewTracerProvider(
		sdktrace.WithSpanProcessor(sp),
		sdktrace.WithResource(resource.NewSchemaless(semconv.ServiceName("keygate"), semconv.ServiceVersion(version))),
	)
	return &Tracing{tracer: tp.Tracer("keygate"), shutdown: tp.Shutdown}
}

// Shutdown flushes pending spans.
func (t *Tracing) Shutdown(ctx context.Context) error { return t.shutdown(ctx) }

// Turn starts the root span of one Cursor turn, named by its Cursor
// request id (the run id is made later, inside the turn; the model-call
// spans carry it). Call end with the turn's error (nil on success) when it
// is over.
func (t *Tracing) Turn(ctx context.Context, requestID, conversationID, model string) (context.Context, func(error)) {
	ctx, span := t.tracer.Start(ctx, "keygate.turn", trace.WithNewRoot(), trace.WithSpanKind(trace.SpanKindServer),
		trace.WithAttributes(attribute.String("keygate.request_id", requestID),
			attribute.String("keygate.conversation_id", conversationID), attribute.String("keygate.model", model)))
	return ctx, ender(span)
}

// ToolRound starts the span of one tool round (the client running the
// tool calls a model cycle asked for).
func (t *Tracing) ToolRound(ctx context.Context, roundID string, calls int) (context.Context, func(error)) {
	ctx, span := t.tracer.Start(ctx, "keygate.tool_round",
		trace.WithAttributes(attribute.String("keygate.tool_round_id", roundID), attribute.Int("keygate.tool_calls", calls)))
	return ctx, ender(span)
}

func ender(span trace.Span) func(error) {
	return func(err error) {
		if err != nil {
			span.RecordError(err)
			span.SetStatus(codes.Error, err.Error())
		}
		span.End()
	}
}
