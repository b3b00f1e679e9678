package runtest

import (
	"context"
	"fmt"
	"time"

	"keygate/domain/callrecord"
	"keygate/domain/conversation"
	"keygate/ports"
)

// Runs returns the store's ports.RunStore.
func (s *Store) Runs() Runs { return Runs{s} }

// Runs implements ports.RunStore over a Store.
type Runs struct{ s *Store }

// Claim implements ports.RunStore.
func (r Runs) Claim(ctx context.Context, c ports.RunClaim) (string, error) {
	s := r.s
	s.mu.Lock()
	defer s.mu.Unlock()
	if err := s.fail(ctx, "claim"); err != nil {
		return "", err
	}
	return s.claim(&c)
}

// ClaimTurn implements ports.RunStore: Claim, Apply and BeginProviderCall
// under one lock, nothing written unless all three succeed.
func (r Runs) ClaimTurn(ctx context.Context, c ports.RunClaim, initial []conversation.Message) (ports.ClaimedTurn, error) {
	s := r.s
	s.mu.Lock()
	defer s.mu.Unlock()
	for _, op := range []string{"claim", "apply", "begin_provider_call"} {
		if err := s.fail(ctx, op); err != nil {
			return ports.ClaimedTurn{}, err
		}
	}
	l, ok := s.logs[c.ConversationID]
	if !ok {
		return ports.ClaimedTurn{}, fmt.Errorf("conversation %q: %w", c.ConversationID, ports.ErrNotFound)
	}
	out := ports.ClaimedTurn{Head: l.Head(), Base: l.Head()}
	ch := conversation.AppendTo(out.Head, initial...)
	if id := c.BaseCheckpointID; id != "" && id != out.Head.ID() {
		if out.Base, ok = l.Checkpoint(id); !ok {
			return ports.ClaimedTurn{}, fmt.Errorf("base %q: %w", id, ports.ErrNotFound)
		}
		ch = conversation.BranchFrom(out.Head.ID(), out.Base, initial...)
	}
	// Decided before anything is written, so that a refused change
	// leaves no claim behind.
	if _, err := l.Decide(ch); err != nil {
		return ports.ClaimedTurn{}, err
	}
	if err := s.decideStored(l, ch); err != nil {
		return ports.ClaimedTurn{}, err
	}
	var err error
	if out.Replaced, err = s.claim(&c); err != nil {
		return ports.ClaimedTurn{}, err
	}
	if out.Applied, err = s.apply(l, ports.Write{Change: ch, RunID: c.RunID}); err != nil {
		return ports.ClaimedTurn{}, err
	}
	run := s.runs[c.RunID]
	run.ProviderCallIndex++
	out.CallIndex = run.ProviderCallIndex
	return out, nil
}

// claim is Claim with the store locked.
func (s *Store) claim(c *ports.RunClaim) (string, error) {
	l, ok := s.logs[c.ConversationID]
	if !ok {
		return "", fmt.Errorf("conversation %q: %w", c.ConversationID, ports.ErrNotFound)
	}
	if c.BaseCheckpointID == "" {
		c.BaseCheckpointID = l.Head().ID()
	}
	if _, ok := l.Checkpoint(c.BaseCheckpointID); !ok {
		return "", fmt.Errorf("base %q: %w", c.BaseCheckpointID, ports.ErrNotFound)
	}
	if _, ok := s.runs[c.RunID]; ok {
		return "", fmt.Errorf("run %q: %w", c.RunID, ports.ErrConflict)
	}
	now := time.Now()
	s.runs[c.RunID] = &ports.Run{RunClaim: *c, HeadCheckpointID: c.BaseCheckpointID, Status: ports.RunRunning,
		ProviderCallIndex: -1, CreatedAt: now, UpdatedAt: now}
	s.runOrder = append(s.runOrder, c.RunID)
	replaced := ""
	if prev, ok := s.runs[s.active[c.ConversationID]]; ok && prev.Status == ports.RunRunning {
		prev.Status, prev.UpdatedAt, replaced = ports.RunCancelled, now, prev.RunID
		for _, c := range s.calls {
			if c.rec.RunID == prev.RunID && c.rec.Status == callrecord.StatusRunning {
				c.rec, _ = c.rec.Cancel(now)
			}
		}
	}
	s.active[c.ConversationID] = c.RunID
	return replaced, nil
}

// Run implements ports.RunStore.
func (r Runs) Run(ctx context.Context, runID string) (ports.Run, error) {
	r.s.mu.Lock()
	defer r.s.mu.Unlock()
	run, ok := r.s.runs[runID]
	if !ok {
		return ports.Run{}, fmt.Errorf("run %q: %w", runID, ports.ErrNotFound)
	}
	return *run, ctx.Err()
}

// LatestForRequest implements ports.RunStore.
func (r Runs) LatestForRequest(ctx context.Context, cursorRequestID string) (ports.Run, error) {
	r.s.mu.Lock()
	defer r.s.mu.Unlock()
	for i := len(r.s.runOrder) - 1; i >= 0; i-- {
		if run := r.s.runs[r.s.runOrder[i]]; run.CursorRequestID == cursorRequestID {
			return *run, ctx.Err()
		}
	}
	return ports.Run{}, ports.ErrNotFound
}

// BeginProviderCall implements ports.RunStore.
func (r Runs) BeginProviderCall(ctx context.Context, runID string) (int, error) {
	s := r.s
	s.mu.Lock()
	defer s.mu.Unlock()
	if err := s.fail(ctx, "begin_provider_call"); err != nil {
		return 0, err
	}
	run, ok := s.runs[runID]
	if !ok {
		return 0, ports.ErrNotFound
	}
	if !s.owns(runID, run.ConversationID) {
		return 0, fmt.Errorf("run %q: %w", runID, ports.ErrNotOwner)
	}
	run.ProviderCallIndex++
	return run.ProviderCallIndex, nil
}

// Finish implements ports.RunStore.
func (r Runs) Finish(ctx context.Context, runID string, end ports.RunEnd) error {
	s := r.s
	s.mu.Lock()
	defer s.mu.Unlock()
	if err := ctx.Err(); err != nil {
		return err
	}
	run, ok := s.runs[runID]
	if !ok {
		return ports.ErrNotFound
	}
	if run.Status != ports.RunRunning {
		return fmt.Errorf("run %q: %w", runID, ports.ErrNotOwner)
	}
	run.Status, run.Usage, run.FailureCategory, run.FailureSummary = end.Status, end.Usage, end.FailureCategory, end.FailureSummary
	run.UpdatedAt = time.Now()
	if s.active[run.ConversationID] == runID {
		delete(s.active, run.ConversationID)
	}
	return nil
}
