package tracing

import (
	"context"
	"sync"

	"go.opentelemetry.io/otel/attribute"
	"go.opentelemetry.io/otel/trace"

	"keygate/domain/llm"
	"keygate/domain/toolround"
	"keygate/ports"
)

// ToolRounds wraps next so that every tool round is a span ([Tracing.ToolRound]),
// a child of the span on the context the round is started with (the
// turn's, since the run engine stores rounds with the run's context). The
// span opens when Start stores the round and ends when the round settles:
// the Commit that completes its last call, or Interrupt. A round still
// pending when Start's context ends (its run is over) ends then, with
// keygate.tool_round.outcome "pending"; a later run that resumes it does
// not trace it again.
func (t *Tracing) ToolRounds(next ports.ToolRoundStore) ports.ToolRoundStore {
	return &toolRounds{t: t, next: next, open: map[string]*openRound{}}
}

type toolRounds struct {
	t    *Tracing
	next ports.ToolRoundStore

	mu   sync.Mutex
	open map[string]*openRound
}

type openRound struct {
	span trace.Span
	end  func(error)
	stop func() bool
}

var _ ports.ToolRoundStore = (*toolRounds)(nil)

func (s *toolRounds) Start(ctx context.Context, runID, baseCheckpointID string, round toolround.Round) error {
	if err := s.next.Start(ctx, runID, baseCheckpointID, round); err != nil {
		return err
	}
	id := round.ID()
	s.mu.Lock()
	defer s.mu.Unlock()
	if _, ok := s.open[id]; ok {
		return nil // a repeated Start of the same round
	}
	spanCtx, end := s.t.ToolRound(ctx, id, len(round.Calls()))
	o := &openRound{span: trace.SpanFromContext(spanCtx), end: end}
	s.open[id] = o
	// The map holds a round only while its run may still settle it.
	o.stop = context.AfterFunc(ctx, func() { s.end(id, "pending") })
	return nil
}

func (s *toolRounds) Round(ctx context.Context, roundID string) (toolround.Round, error) {
	return s.next.Round(ctx, roundID)
}

func (s *toolRounds) Commit(ctx context.Context, runID, roundID string, result llm.ToolResult) (ports.ToolRoundCommit, error) {
	c, err := s.next.Commit(ctx, runID, roundID, result)
	if err == nil && c.Settled {
		s.end(roundID, "settled")
	}
	return c, err
}

func (s *toolRounds) Interrupt(ctx context.Context, runID, roundID string, detached ...llm.ToolResult) (ports.ToolRoundCommit, error) {
	c, err := s.next.Interrupt(ctx, runID, roundID, detached...)
	if err == nil {
		s.end(roundID, "interrupted")
	}
	return c, err
}

// end ends the round's span once, if it is open here.
func (s *toolRounds) end(roundID, outcome string) {
	s.mu.Lock()
	o, ok := s.open[roundID]
	delete(s.open, roundID)
	s.mu.Unlock()
	if !ok {
		return
	}
	o.stop()
	o.span.SetAttributes(attribute.String("keygate.tool_round.outcome", outcome))
	o.end(nil)
}
