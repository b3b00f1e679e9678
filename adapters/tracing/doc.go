// Package tracing sends OpenTelemetry traces of Keygate's work: one trace
// per Cursor turn, with a span per model call and per tool round inside
// it, exported over OTLP/HTTP to the collector the configuration names
// (app/config reads OpenTelemetry's standard endpoint variables).
//
// Place in the hexagon: adapter. Model-call spans come from a decorator of
// ports.ModelProvider ([Tracing.Provider]) and tool-round spans from a
// decorator of ports.ToolRoundStore ([Tracing.ToolRounds]); the turn span
// is started by whoever serves the turn ([Tracing.Turn]; the Cursor
// adapter calls it for each turn it serves) and rides on the context, so
// the model calls and tool rounds of the turn's run nest under it. Without
// an endpoint configured the tracer is a no-op and costs next to nothing.
//
// It uses the OpenTelemetry SDK (go.opentelemetry.io/otel) rather than
// anything hand-written: the wire protocol, batching and sampling are the
// SDK's job.
package tracing
