// Package tracing sends OpenTelemetry traces of Keygate's work: one trace
// per Cursor turn, with a span per model call and per tool round inside
// it, exported over OTLP/HTTP to the collector the standard
// OTEL_EXPORTER_OTLP_* variables name.
//
// Place in the hexagon: adapter. Model-call spans come from a decorator of
// ports.ModelProvider ([Tracing.Provider]); the turn and tool-round spans
// are started by whoever serves the turn ([Tracing.Turn],
// [Tracing.ToolRound]) and ride on the context, so model calls made with
// that context nest under them. Without an endpoint configured the tracer
// is a no-op and costs next to nothing.
//
// It uses the OpenTelemetry SDK (go.opentelemetry.io/otel) rather than
// anything hand-written: the wire protocol, batching and sampling are the
// SDK's job.
package tracing
