package relstore

import (
	"context"
	"errors"
	"fmt"
	"time"

	"keygate/domain/conversation"
	"keygate/ports"
)

// Runs implements ports.RunStore.
type Runs struct{ s *Store }

var _ ports.RunStore = Runs{}

// Claim implements ports.RunStore.
func (r Runs) Claim(ctx context.Context, c ports.RunClaim) (string, error) {
	var replaced string
	err := r.s.engine.Write(ctx, func(tx Tx) error {
		var err error
		_, replaced, err = claimRun(ctx, tx, &c, r.s.now())
		return err
	})
	if err != nil {
		return "", fmt.Errorf("claim run %q: %w", c.RunID, err)
	}
	return replaced, nil
}

// ClaimTurn implements ports.RunStore: Claim, Apply and BeginProviderCall
// in one write transaction.
func (r Runs) ClaimTurn(ctx context.Context, c ports.RunClaim, initial []conversation.Message) (ports.ClaimedTurn, error) {
	var out ports.ClaimedTurn
	err := r.s.engine.Write(ctx, func(tx Tx) error {
		now := r.s.now()
		conv, replaced, err := claimRun(ctx, tx, &c, now)
		if err != nil {
			return err
		}
		out = ports.ClaimedTurn{Replaced: replaced}
		if out.Head, err = checkpointByID(ctx, tx, conv.HeadID); err != nil {
			return err
		}
		out.Base = out.Head
		ch := conversation.AppendTo(out.Head, initial...)
		if c.BaseCheckpointID != out.Head.ID() {
			if out.Base, err = checkpointByID(ctx, tx, c.BaseCheckpointID); err != nil {
				return err
			}
			ch = conversation.BranchFrom(out.Head.ID(), out.Base, initial...)
		}
		plan, err := ch.Plan()
		if err != nil {
			return err
		}
		// The claim made the run the conversation's owner in this
		// transaction: nothing to check before applying on its behalf.
		if out.Applied, err = applyPlan(ctx, tx, conv, plan, c.RunID, now); err != nil {
			return err
		}
		out.CallIndex, err = tx.NextProviderCall(ctx, c.RunID, now)
		return err
	})
	if err != nil {
		return ports.ClaimedTurn{}, fmt.Errorf("claim turn of run %q: %w", c.RunID, err)
	}
	return out, nil
}

// claimRun stores c as a new running run and makes it the conversation's
// active run, cancelling the running run it replaces (returned); it sets
// c's base to the head when empty and returns the locked conversation row
// as read before the claim.
func claimRun(ctx context.Context, tx Tx, c *ports.RunClaim, now time.Time) (ConversationRow, string, error) {
	conv, err := tx.LockConversation(ctx, c.ConversationID)
	if err != nil {
		return ConversationRow{}, "", err
	}
	if c.BaseCheckpointID == "" {
		c.BaseCheckpointID = conv.HeadID
	}
	known, err := tx.ExistingCheckpoints(ctx, conv.ID, []string{c.BaseCheckpointID})
	if err != nil {
		return ConversationRow{}, "", err
	}
	if len(known) == 0 {
		return ConversationRow{}, "", fmt.Errorf("base checkpoint %q: %w", c.BaseCheckpointID, ports.ErrNotFound)
	}
	if err := tx.InsertRun(ctx, *c, now); err != nil {
		return ConversationRow{}, "", err
	}
	replaced := ""
	if conv.ActiveRunID != "" {
		prev, err := tx.GetRun(ctx, conv.ActiveRunID)
		if err != nil {
			return ConversationRow{}, "", err
		}
		if prev.Status == ports.RunRunning {
			if err := tx.CancelRun(ctx, prev.RunID, now); err != nil {
				return ConversationRow{}, "", err
			}
			if err := tx.CancelRunningCalls(ctx, prev.RunID, now); err != nil {
				return ConversationRow{}, "", err
			}
			replaced = prev.RunID
		}
	}
	return conv, replaced, tx.SetActiveRun(ctx, conv.ID, c.RunID, now)
}

// Run implements ports.RunStore.
func (r Runs) Run(ctx context.Context, runID string) (ports.Run, error) {
	var run ports.Run
	err := r.s.engine.Read(ctx, func(tx Tx) error {
		var err error
		run, err = tx.GetRun(ctx, runID)
		return err
	})
	if err != nil {
		return ports.Run{}, fmt.Errorf("read run %q: %w", runID, err)
	}
	return run, nil
}

// LatestForRequest implements ports.RunStore.
func (r Runs) LatestForRequest(ctx context.Context, cursorRequestID string) (ports.Run, error) {
	var run ports.Run
	err := r.s.engine.Read(ctx, func(tx Tx) error {
		var err error
		run, err = tx.LatestRunByCursorRequest(ctx, cursorRequestID)
		return err
	})
	if err != nil {
		return ports.Run{}, fmt.Errorf("read latest run of request %q: %w", cursorRequestID, err)
	}
	return run, nil
}

// BeginProviderCall implements ports.RunStore.
func (r Runs) BeginProviderCall(ctx context.Context, runID string) (int, error) {
	var idx int
	err := r.s.engine.Write(ctx, func(tx Tx) error {
		if _, err := ownedRun(ctx, tx, runID, ""); err != nil {
			return err
		}
		var err error
		idx, err = tx.NextProviderCall(ctx, runID, r.s.now())
		return err
	})
	if err != nil {
		return 0, fmt.Errorf("begin provider call of run %q: %w", runID, err)
	}
	return idx, nil
}

// Finish implements ports.RunStore.
func (r Runs) Finish(ctx context.Context, runID string, end ports.RunEnd) error {
	if end.Status == ports.RunRunning {
		return fmt.Errorf("finish run %q: status %s is not final", runID, end.Status)
	}
	err := r.s.engine.Write(ctx, func(tx Tx) error {
		run, err := tx.GetRun(ctx, runID)
		if err != nil {
			return err
		}
		// Lock the conversation before the run row, the order Claim and
		// Apply use, so a finish racing a claim cannot deadlock.
		if _, err := tx.LockConversation(ctx, run.ConversationID); err != nil {
			return err
		}
		now := r.s.now()
		ok, err := tx.FinishRun(ctx, runID, end, now)
		if err != nil {
			return err
		}
		if !ok {
			return ports.ErrNotOwner
		}
		return tx.ClearActiveRun(ctx, run.ConversationID, runID, now)
	})
	if err != nil {
		return fmt.Errorf("finish run %q: %w", runID, err)
	}
	return nil
}

// ownedRun returns the run if it is running and active; conversationID, when
// set, must be the run's conversation. A run that exists but does not own
// its conversation is ErrNotOwner.
func ownedRun(ctx context.Context, tx runRows, runID, conversationID string) (ports.Run, error) {
	run, err := tx.OwnedRun(ctx, runID)
	if errors.Is(err, ports.ErrNotFound) {
		if _, err := tx.GetRun(ctx, runID); err != nil {
			return ports.Run{}, err
		}
		return ports.Run{}, fmt.Errorf("run %q: %w", runID, ports.ErrNotOwner)
	}
	if err != nil {
		return ports.Run{}, err
	}
	if conversationID != "" && run.ConversationID != conversationID {
		return ports.Run{}, fmt.Errorf("run %q belongs to another conversation: %w", runID, ports.ErrNotOwner)
	}
	return run, nil
}
