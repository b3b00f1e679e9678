package tracing

import (
	"context"

	"go.opentelemetry.io/otel/trace"

	"keygate/domain/conversation"
	"keygate/ports"
)

// Conversations wraps next so that each call made for a traced turn is a
// span of it (keygate.store.conversation.<operation>): with the model
// call's span they show where a turn's time before the provider request
// goes (opening the conversation, loading its history, the writes). Calls
// outside a trace (retention, the console) make no span.
func (t *Tracing) Conversations(next ports.ConversationStore) ports.ConversationStore {
	return conversations{t: t, next: next}
}

// Runs wraps next the same way (keygate.store.run.<operation>).
func (t *Tracing) Runs(next ports.RunStore) ports.RunStore { return runs{t: t, next: next} }

// childSpan starts the span of one call (a store call, the route's
// choice) when ctx is in a trace; end is a no-op otherwise.
func (t *Tracing) childSpan(ctx context.Context, name string, opts ...trace.SpanStartOption) func(error) {
	if !trace.SpanContextFromContext(ctx).IsValid() {
		return func(error) {}
	}
	_, span := t.tracer.Start(ctx, name, append(opts, trace.WithSpanKind(trace.SpanKindInternal))...)
	return ender(span)
}

type conversations struct {
	t    *Tracing
	next ports.ConversationStore
}

func (c conversations) Open(ctx context.Context, conversationID string) (conversation.Checkpoint, error) {
	end := c.t.childSpan(ctx, "keygate.store.conversation.open")
	cp, err := c.next.Open(ctx, conversationID)
	end(err)
	return cp, err
}

func (c conversations) Head(ctx context.Context, conversationID string) (conversation.Checkpoint, error) {
	end := c.t.childSpan(ctx, "keygate.store.conversation.head")
	cp, err := c.next.Head(ctx, conversationID)
	end(err)
	return cp, err
}

func (c conversations) Load(ctx context.Context, checkpointID string) (conversation.Checkpoint, []conversation.Message, error) {
	end := c.t.childSpan(ctx, "keygate.store.conversation.load")
	cp, msgs, err := c.next.Load(ctx, checkpointID)
	end(err)
	return cp, msgs, err
}

func (c conversations) Apply(ctx context.Context, w ports.Write) (conversation.Decision, error) {
	end := c.t.childSpan(ctx, "keygate.store.conversation.apply")
	d, err := c.next.Apply(ctx, w)
	end(err)
	return d, err
}

type runs struct {
	t    *Tracing
	next ports.RunStore
}

func (r runs) Claim(ctx context.Context, c ports.RunClaim) (string, error) {
	end := r.t.childSpan(ctx, "keygate.store.run.claim")
	replaced, err := r.next.Claim(ctx, c)
	end(err)
	return replaced, err
}

func (r runs) ClaimTurn(ctx context.Context, c ports.RunClaim, initial []conversation.Message) (ports.ClaimedTurn, error) {
	end := r.t.childSpan(ctx, "keygate.store.run.claim_turn")
	t, err := r.next.ClaimTurn(ctx, c, initial)
	end(err)
	return t, err
}

func (r runs) Run(ctx context.Context, runID string) (ports.Run, error) {
	end := r.t.childSpan(ctx, "keygate.store.run.get")
	got, err := r.next.Run(ctx, runID)
	end(err)
	return got, err
}

func (r runs) LatestForRequest(ctx context.Context, cursorRequestID string) (ports.Run, error) {
	end := r.t.childSpan(ctx, "keygate.store.run.latest_for_request")
	got, err := r.next.LatestForRequest(ctx, cursorRequestID)
	end(err)
	return got, err
}

func (r runs) BeginProviderCall(ctx context.Context, runID string) (int, error) {
	end := r.t.childSpan(ctx, "keygate.store.run.begin_provider_call")
	n, err := r.next.BeginProviderCall(ctx, runID)
	end(err)
	return n, err
}

func (r runs) Finish(ctx context.Context, runID string, e ports.RunEnd) error {
	end := r.t.childSpan(ctx, "keygate.store.run.finish")
	err := r.next.Finish(ctx, runID, e)
	end(err)
	return err
}
