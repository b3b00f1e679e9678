package cursor

import (
	"context"
	"errors"
	"fmt"

	"keygate/adapters/cursor/agent"
	"keygate/adapters/cursor/transport"
	"keygate/app/run"
	"keygate/domain/budget"
)

// TraceTurn starts the trace of one turn Keygate serves. It returns the
// context the turn runs in and end, called with the turn's error (nil on
// success) when the turn is over. tracing.Tracing.Turn is one.
type TraceTurn func(ctx context.Context, requestID, conversationID, model string) (context.Context, func(error))

// AdmitTurn is asked before a turn Keygate serves reaches the run layer.
// parentRequestID names a subagent's parent turn ("" for a top-level
// turn). It returns release, called once the turn is over, or an error
// that ends the turn at once: a *budget.ExceededError with the limit's
// message in the client's error bubble, any other error as internal.
// company.Budgets.HoldTurn is one.
type AdmitTurn func(ctx context.Context, requestID, parentRequestID string) (release func(), err error)

// TurnNotice returns a line to show the user at the start of an admitted
// turn ("" for none), such as a budget's 80% warning.
// company.Budgets.TurnNotice is one.
type TurnNotice func(ctx context.Context) string

// tracedTurns makes each turn the root span of a trace. The run layer
// starts the turn's run with the context it is served with, so the spans
// of the run's model calls and tool rounds nest under the turn's.
type tracedTurns struct {
	next  transport.RunHandler
	trace TraceTurn
}

func (t tracedTurns) ServeRun(ctx context.Context, turn *transport.Turn) error {
	ctx, end := t.trace(ctx, turn.RequestID, turn.Request.GetConversationId(), transport.ModelID(turn.Request))
	err := t.next.ServeRun(ctx, turn)
	end(err)
	return err
}

// admittedTurns lets a turn reach the run layer only once admit said yes,
// and tells admit when it is over.
type admittedTurns struct {
	next   transport.RunHandler
	admit  AdmitTurn
	notice TurnNotice
}

func (a admittedTurns) ServeRun(ctx context.Context, turn *transport.Turn) error {
	release, err := a.admit(ctx, turn.RequestID, turn.Parent.RequestID)
	var exceeded *budget.ExceededError
	switch {
	case errors.As(err, &exceeded):
		return agent.FailureError(&run.Failure{Category: run.CategoryLimit, Message: exceeded.Error(), Err: err})
	case err != nil:
		return fmt.Errorf("admit turn: %w", err)
	}
	defer release()
	if a.notice != nil {
		if line := a.notice(ctx); line != "" {
			ctx = agent.WithNotice(ctx, line)
		}
	}
	return a.next.ServeRun(ctx, turn)
}
