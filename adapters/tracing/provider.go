package tracing

import (
	"context"
	"errors"

	"go.opentelemetry.io/otel/attribute"
	"go.opentelemetry.io/otel/codes"
	"go.opentelemetry.io/otel/trace"

	"keygate/domain/llm"
	"keygate/ports"
)

// Provider wraps next so that every model call is a span, a child of the
// span on the call's context (the turn or tool round). The span carries the
// provider, model, call id, token usage, the first token as an event, and
// the error class of a failure; never the prompt or the key.
func (t *Tracing) Provider(next ports.ModelProvider) ports.ModelProvider {
	return provider{t: t, next: next}
}

type provider struct {
	t    *Tracing
	next ports.ModelProvider
}

func (p provider) Stream(ctx context.Context, call ports.ModelCall) (ports.ModelStream, error) {
	ctx, span := p.t.tracer.Start(ctx, "keygate.model_call", trace.WithSpanKind(trace.SpanKindClient),
		trace.WithAttributes(
			attribute.String("gen_ai.provider.name", string(call.Endpoint.Kind)),
			attribute.String("gen_ai.request.model", call.Request.Model),
			attribute.String("keygate.call_id", call.CallID),
			attribute.String("keygate.run_id", call.RunID),
			attribute.Int("keygate.provider_call_index", call.ProviderCallIndex),
		))
	s, err := p.next.Stream(ctx, call)
	if err != nil {
		endSpan(span, err)
		return nil, err
	}
	return &stream{ModelStream: s, span: span}, nil
}

type stream struct {
	ports.ModelStream
	span      trace.Span
	sawToken  bool
	toolCalls int
	done      bool
}

func (s *stream) Next() bool {
	if !s.ModelStream.Next() {
		s.end(s.ModelStream.Err())
		return false
	}
	ev := s.ModelStream.Event()
	switch ev.Kind {
	case llm.EventTextDelta, llm.EventThinkingDelta:
		if !s.sawToken {
			s.sawToken = true
			s.span.AddEvent("first_token")
		}
	case llm.EventToolCallStart:
		s.toolCalls++
	case llm.EventUsage:
		if u := ev.Usage; u != nil {
			s.span.SetAttributes(attribute.Int64("gen_ai.usage.input_tokens", u.Input+u.CacheRead+u.CacheWrite),
				attribute.Int64("gen_ai.usage.output_tokens", u.Output),
				attribute.Int64("keygate.usage.cache_read_tokens", u.CacheRead))
		}
	case llm.EventDone:
		s.span.SetAttributes(attribute.String("gen_ai.response.finish_reason", ev.Finish.String()))
	}
	return true
}

func (s *stream) Close() error {
	s.end(context.Canceled)
	return s.ModelStream.Close()
}

func (s *stream) end(err error) {
	if s.done {
		return
	}
	s.done = true
	s.span.SetAttributes(attribute.Int("keygate.tool_calls", s.toolCalls))
	endSpan(s.span, err)
}

func endSpan(span trace.Span, err error) {
	var pe *llm.ProviderError
	switch {
	case err == nil:
	case errors.As(err, &pe):
		span.SetAttributes(attribute.String("error.type", pe.Class.String()))
		span.SetStatus(codes.Error, pe.Class.String())
	case errors.Is(err, context.Canceled):
		span.SetAttributes(attribute.String("error.type", "cancelled"))
	default:
		span.SetAttributes(attribute.String("error.type", "unknown"))
		span.SetStatus(codes.Error, "model call failed")
	}
	span.End()
}
