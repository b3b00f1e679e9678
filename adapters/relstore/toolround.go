package relstore

import (
	"bytes"
	"context"
	"fmt"

	"keygate/domain/conversation"
	"keygate/domain/llm"
	"keygate/domain/toolround"
	"keygate/ports"
)

// ToolRounds implements ports.ToolRoundStore.
type ToolRounds struct{ s *Store }

var _ ports.ToolRoundStore = ToolRounds{}

// Start implements ports.ToolRoundStore.
func (t ToolRounds) Start(ctx context.Context, runID, baseCheckpointID string, round toolround.Round) error {
	plan := round.Plan().Encode()
	err := t.s.engine.Write(ctx, func(tx Tx) error {
		run, err := ownedRun(ctx, tx, runID, "")
		if err != nil {
			return err
		}
		stored, err := tx.GetToolRound(ctx, round.ID())
		switch {
		case err == nil && bytes.Equal(stored.Plan, plan) && stored.ConversationID == run.ConversationID:
			return nil
		case err == nil:
			return fmt.Errorf("round %q stored with another plan: %w", round.ID(), ports.ErrConflict)
		case !isNotFound(err):
			return err
		}
		conv, err := tx.LockConversation(ctx, run.ConversationID)
		if err != nil {
			return err
		}
		if conv.HeadID != baseCheckpointID {
			return conversation.ErrStaleHead
		}
		return tx.InsertToolRound(ctx, ToolRoundRow{
			ID: round.ID(), RunID: runID, ConversationID: run.ConversationID,
			BaseID: baseCheckpointID, Plan: plan,
		}, t.s.now())
	})
	if err != nil {
		return fmt.Errorf("start tool round %q: %w", round.ID(), err)
	}
	return nil
}

// Round implements ports.ToolRoundStore.
func (t ToolRounds) Round(ctx context.Context, roundID string) (toolround.Round, error) {
	var r toolround.Round
	err := t.s.engine.Read(ctx, func(tx Tx) error {
		var err error
		r, _, err = roundFromRows(ctx, tx, roundID)
		return err
	})
	if err != nil {
		return toolround.Round{}, fmt.Errorf("read tool round %q: %w", roundID, err)
	}
	return r, nil
}

// Commit implements ports.ToolRoundStore.
func (t ToolRounds) Commit(ctx context.Context, runID, roundID string, result llm.ToolResult) (ports.ToolRoundCommit, error) {
	return t.settle(ctx, runID, roundID, func(r toolround.Round) (toolround.Round, []conversation.Message, bool, error) {
		next, c, err := r.Commit(result)
		return next, c.Messages, c.Duplicate, err
	})
}

// Interrupt implements ports.ToolRoundStore.
func (t ToolRounds) Interrupt(ctx context.Context, runID, roundID string, detached ...llm.ToolResult) (ports.ToolRoundCommit, error) {
	return t.settle(ctx, runID, roundID, func(r toolround.Round) (toolround.Round, []conversation.Message, bool, error) {
		next, msgs, err := r.Interrupt(detached...)
		return next, msgs, len(msgs) == 0, err
	})
}

// step advances a round; it returns the next round, the messages to append
// and whether nothing changed.
type step func(toolround.Round) (toolround.Round, []conversation.Message, bool, error)

// settle runs one step of a round in a single transaction: the messages are
// appended to the head and the completions recorded with the checkpoint that
// holds them, or nothing is written.
func (t ToolRounds) settle(ctx context.Context, runID, roundID string, next step) (ports.ToolRoundCommit, error) {
	var out ports.ToolRoundCommit
	err := t.s.engine.Write(ctx, func(tx Tx) error {
		round, row, err := roundFromRows(ctx, tx, roundID)
		if err != nil {
			return err
		}
		if _, err := ownedRun(ctx, tx, runID, row.ConversationID); err != nil {
			return err
		}
		conv, err := tx.LockConversation(ctx, row.ConversationID)
		if err != nil {
			return err
		}
		head, err := checkpointByID(ctx, tx, conv.HeadID)
		if err != nil {
			return err
		}
		after, msgs, unchanged, err := next(round)
		if err != nil {
			return err
		}
		out = ports.ToolRoundCommit{Round: after, Checkpoint: head, Duplicate: unchanged, Settled: after.Settled()}
		if unchanged {
			return nil
		}
		plan, err := conversation.AppendTo(head, msgs...).Plan()
		if err != nil {
			return err
		}
		now := t.s.now()
		d, err := applyPlan(ctx, tx, conv, plan, runID, now)
		if err != nil {
			return err
		}
		out.Checkpoint = d.Checkpoint
		done := after.Completed()
		for seq := len(round.Completed()); seq < len(done); seq++ {
			if err := tx.InsertToolRoundResult(ctx, roundID, seq, done[seq], d.Checkpoint.ID(), now); err != nil {
				return err
			}
		}
		return nil
	})
	if err != nil {
		return ports.ToolRoundCommit{}, fmt.Errorf("commit tool round %q: %w", roundID, err)
	}
	return out, nil
}

// roundFromRows rebuilds a round from its plan and completion rows.
func roundFromRows(ctx context.Context, tx toolRoundRows, roundID string) (toolround.Round, ToolRoundRow, error) {
	row, err := tx.GetToolRound(ctx, roundID)
	if err != nil {
		return toolround.Round{}, ToolRoundRow{}, err
	}
	done, err := tx.ToolRoundResults(ctx, roundID)
	if err != nil {
		return toolround.Round{}, ToolRoundRow{}, err
	}
	plan, err := conversation.DecodeMessage(row.Plan)
	if err != nil {
		return toolround.Round{}, ToolRoundRow{}, err
	}
	r, err := toolround.Rehydrate(plan, done)
	return r, row, err
}
