package company

import (
	"context"
	"sync"

	"go.uber.org/zap"

	"keygate/domain/identity"
)

// HoldTurn holds one of the caller's concurrent-run slots (HoldRun) for a
// top-level turn until release. A subagent's turn (parentRequestID set)
// runs inside its parent's slot and holds none. A turn without a caller
// on ctx holds none either: the stores of the Cursor path refuse it
// (Tenancy.CursorStores). Over the limit it returns the
// *budget.ExceededError, whose message is written for the user.
func (b *Budgets) HoldTurn(ctx context.Context, requestID, parentRequestID string) (release func(), err error) {
	if parentRequestID != "" {
		return func() {}, nil
	}
	who, ok := identity.FromContext(ctx)
	if !ok {
		return func() {}, nil
	}
	return b.HoldRun(ctx, who.UserID, requestID)
}

// HoldRun takes one of userID's concurrent-run slots for runID (see
// StartRun) and keeps renewing it every third of LeaseTTL until release is
// called, which frees the slot. Wrap a run with it:
//
//	release, err := budgets.HoldRun(ctx, user, runID)
//	if err != nil { return err } // *budget.ExceededError: tell the user
//	defer release()
//
// A renewal that fails is logged and retried at the next tick; if the
// replica dies, the lease expires on its own after LeaseTTL.
func (b *Budgets) HoldRun(ctx context.Context, userID, runID string) (release func(), err error) {
	if b.Limits(userID).ConcurrentRuns <= 0 {
		return func() {}, nil
	}
	if err := b.StartRun(ctx, userID, runID); err != nil {
		return nil, err
	}
	stop := make(chan struct{})
	done := make(chan struct{})
	bg := context.WithoutCancel(ctx)
	go func() {
		defer close(done)
		for {
			t := b.clock.NewTimer(b.policy.LeaseTTL / 3)
			select {
			case <-stop:
				t.Stop()
				return
			case <-t.C():
			}
			if err := b.StartRun(bg, userID, runID); err != nil {
				b.log.Warn("run lease not renewed", zap.String("run", runID), zap.Error(err))
			}
		}
	}()
	var once sync.Once
	return func() {
		once.Do(func() {
			close(stop)
			<-done
			if err := b.EndRun(bg, runID); err != nil {
				b.log.Warn("run lease not released; it expires on its own", zap.String("run", runID), zap.Error(err))
			}
		})
	}, nil
}
