package runtest

import (
	"context"
	"errors"
	"fmt"

	"keygate/domain/conversation"
	"keygate/domain/llm"
	"keygate/domain/toolround"
	"keygate/ports"
)

// Rounds returns the store's ports.ToolRoundStore.
func (s *Store) Rounds() Rounds { return Rounds{s} }

// Rounds implements ports.ToolRoundStore over a Store.
type Rounds struct{ s *Store }

// Start implements ports.ToolRoundStore.
func (t Rounds) Start(ctx context.Context, runID, baseCheckpointID string, round toolround.Round) error {
	s := t.s
	s.mu.Lock()
	defer s.mu.Unlock()
	if err := s.fail(ctx, "start_round"); err != nil {
		return err
	}
	run, ok := s.runs[runID]
	if !ok || !s.owns(runID, run.ConversationID) {
		return fmt.Errorf("run %q: %w", runID, ports.ErrNotOwner)
	}
	if stored, ok := s.rounds[round.ID()]; ok {
		if stored.round.Plan().Equal(round.Plan()) && stored.convID == run.ConversationID {
			return nil
		}
		return fmt.Errorf("round %q: %w", round.ID(), ports.ErrConflict)
	}
	if s.logs[run.ConversationID].Head().ID() != baseCheckpointID {
		return conversation.ErrStaleHead
	}
	s.rounds[round.ID()] = &storedRound{round: round, runID: runID, convID: run.ConversationID}
	return nil
}

// Round implements ports.ToolRoundStore.
func (t Rounds) Round(ctx context.Context, roundID string) (toolround.Round, error) {
	t.s.mu.Lock()
	defer t.s.mu.Unlock()
	r, ok := t.s.rounds[roundID]
	if !ok {
		return toolround.Round{}, fmt.Errorf("round %q: %w", roundID, ports.ErrNotFound)
	}
	return r.round, ctx.Err()
}

// Commit implements ports.ToolRoundStore.
func (t Rounds) Commit(ctx context.Context, runID, roundID string, res llm.ToolResult) (ports.ToolRoundCommit, error) {
	return t.settle(ctx, runID, roundID, func(r toolround.Round) (toolround.Round, []conversation.Message, bool, error) {
		next, c, err := r.Commit(res)
		return next, c.Messages, c.Duplicate, err
	})
}

// Interrupt implements ports.ToolRoundStore.
func (t Rounds) Interrupt(ctx context.Context, runID, roundID string, detached ...llm.ToolResult) (ports.ToolRoundCommit, error) {
	return t.settle(ctx, runID, roundID, func(r toolround.Round) (toolround.Round, []conversation.Message, bool, error) {
		next, msgs, err := r.Interrupt(detached...)
		return next, msgs, len(msgs) == 0, err
	})
}

func (t Rounds) settle(ctx context.Context, runID, roundID string,
	step func(toolround.Round) (toolround.Round, []conversation.Message, bool, error)) (ports.ToolRoundCommit, error) {
	s := t.s
	s.mu.Lock()
	defer s.mu.Unlock()
	if err := s.fail(ctx, "commit_round"); err != nil {
		return ports.ToolRoundCommit{}, err
	}
	sr, ok := s.rounds[roundID]
	if !ok {
		return ports.ToolRoundCommit{}, fmt.Errorf("round %q: %w", roundID, ports.ErrNotFound)
	}
	if !s.owns(runID, sr.convID) {
		if _, ok := s.runs[runID]; !ok {
			return ports.ToolRoundCommit{}, ports.ErrNotFound
		}
		return ports.ToolRoundCommit{}, fmt.Errorf("run %q: %w", runID, ports.ErrNotOwner)
	}
	l := s.logs[sr.convID]
	next, msgs, unchanged, err := step(sr.round)
	if err != nil {
		return ports.ToolRoundCommit{}, err
	}
	out := ports.ToolRoundCommit{Round: next, Checkpoint: l.Head(), Duplicate: unchanged, Settled: next.Settled()}
	if unchanged {
		return out, nil
	}
	ch := conversation.AppendTo(l.Head(), msgs...)
	if err := s.decideStored(l, ch); err != nil {
		return ports.ToolRoundCommit{}, err
	}
	d, err := l.Apply(ch)
	if err != nil {
		return ports.ToolRoundCommit{}, errors.Join(errors.New("append tool result"), err)
	}
	sr.round = next
	s.runs[runID].HeadCheckpointID = d.Checkpoint.ID()
	out.Checkpoint = d.Checkpoint
	return out, nil
}
