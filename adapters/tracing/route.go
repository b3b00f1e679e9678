package tracing

import (
	"context"

	"go.opentelemetry.io/otel/attribute"
	"go.opentelemetry.io/otel/trace"

	"keygate/ports"
)

// Route wraps next, the router with whatever admits a call before it
// (budgets), so that choosing where a call goes is a span of its own
// (keygate.route): it opens when the engine asks for the model and ends
// when next returns the stream. It is a sibling of the model call's span,
// not its parent, so that the model calls stay children of the turn.
func (t *Tracing) Route(next ports.ModelProvider) ports.ModelProvider { return route{t: t, next: next} }

type route struct {
	t    *Tracing
	next ports.ModelProvider
}

func (r route) Stream(ctx context.Context, call ports.ModelCall) (ports.ModelStream, error) {
	end := r.t.childSpan(ctx, "keygate.route", trace.WithAttributes(
		attribute.String("keygate.call_id", call.CallID), attribute.String("keygate.route", call.Endpoint.Route)))
	s, err := r.next.Stream(ctx, call)
	end(err)
	return s, err
}
