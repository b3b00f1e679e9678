package company

import (
	"context"
	"fmt"
	"math"
	"strconv"
	"sync"

	"go.uber.org/zap"

	"keygate/domain/budget"
	"keygate/domain/identity"
)

// slot is one kind of concurrent-run slot: the lease scope its count is
// kept under (the user_id of run_leases), how many it allows (0: no
// bound, yet still leased, so that a subagent can find its parent) and
// the limit a refusal names.
type slot struct {
	scope string
	max   int
	limit budget.Limit
	// team names the team whose slot this is (its lease key is the run's
	// with a suffix, so one run holds both); empty for the user's own.
	team string
}

// lease is the lease key of s for a run whose own key is key.
func (s slot) lease(key string) string {
	if s.team == "" {
		return key
	}
	return key + "\x1fteam"
}

// teamSlot is the run slot of userID's team, if the team limits its
// concurrent runs.
func (b *Budgets) teamSlot(ctx context.Context, userID string) ([]slot, error) {
	set := b.limits.Load()
	if len(set.teams) == 0 {
		return nil, nil
	}
	team, err := b.teamOf(ctx, userID)
	if err != nil {
		return nil, err
	}
	if tl, ok := set.teams[team]; ok && team != "" && tl.ConcurrentRuns > 0 {
		return []slot{{scope: budget.TeamScope(team), max: tl.ConcurrentRuns, limit: budget.LimitConcurrentRuns, team: team}}, nil
	}
	return nil, nil
}

// HoldTurn holds a concurrent slot of the caller for a Cursor turn until
// release (HoldRun's renewal). A top-level turn takes one of the caller's
// run slots (ConcurrentRuns). A subagent's turn (parentRequestID set)
// takes a subagent slot (Limits.SubagentLimit) only when its parent is a
// turn of the same caller that holds a slot now, on any replica (the
// leases are in the shared store); any other parent, made up, ended or
// another user's, is no parent, and the turn takes a run slot like a
// top-level one. So forged parent headers gain nothing, while a genuine
// subagent, whose parent waits for it, is never refused for its parent's
// slot. A turn without a caller on ctx holds none: the stores of the
// Cursor path refuse it (Tenancy.CursorStores). Over a limit it returns
// the *budget.ExceededError, whose message is written for the user.
func (b *Budgets) HoldTurn(ctx context.Context, requestID, parentRequestID string) (release func(), err error) {
	who, ok := identity.FromContext(ctx)
	if !ok {
		return func() {}, nil
	}
	l := b.Limits(who.UserID)
	team, err := b.teamSlot(ctx, who.UserID)
	if err != nil {
		return nil, err
	}
	if l.ConcurrentRuns <= 0 && l.SubagentLimit() <= 0 && len(team) == 0 {
		return func() {}, nil
	}
	s := slot{scope: who.UserID, max: l.ConcurrentRuns, limit: budget.LimitConcurrentRuns}
	if parentRequestID != "" {
		live, err := b.leases.HeldRun(ctx, turnLease(who.UserID, parentRequestID), b.clock.Now())
		if err != nil {
			return nil, fmt.Errorf("check the parent turn of %s: %w", requestID, err)
		}
		if live {
			s, team = slot{scope: subagentScope(who.UserID), max: l.SubagentLimit(), limit: budget.LimitConcurrentSubagents}, nil
		}
	}
	return b.hold(ctx, append([]slot{s}, team...), turnLease(who.UserID, requestID))
}

// turnLease names the lease of a user's turn: request ids are the
// client's, so two users' turns may carry the same one, and neither may
// renew, release or vouch for the other's lease. The user's length makes
// the name unambiguous.
func turnLease(userID, requestID string) string {
	return strconv.Itoa(len(userID)) + ":" + userID + ":" + requestID
}

// subagentScope counts a user's subagent leases apart from their runs.
// The unit separators keep it from being any user's id that sign-in
// reports (a header value cannot carry them).
func subagentScope(userID string) string { return "\x1fsubagents\x1f" + userID }

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
	l := b.Limits(userID)
	team, err := b.teamSlot(ctx, userID)
	if err != nil {
		return nil, err
	}
	if l.ConcurrentRuns <= 0 && len(team) == 0 {
		return func() {}, nil
	}
	return b.hold(ctx, append([]slot{{scope: userID, max: l.ConcurrentRuns, limit: budget.LimitConcurrentRuns}}, team...), runID)
}

// hold takes every slot in slots for the lease key, or none, and renews
// them until release.
func (b *Budgets) hold(ctx context.Context, slots []slot, key string) (release func(), err error) {
	for i, s := range slots {
		if err := b.acquire(ctx, s, s.lease(key)); err != nil {
			for _, held := range slots[:i] {
				if rerr := b.EndRun(context.WithoutCancel(ctx), held.lease(key)); rerr != nil {
					b.log.Warn("run lease not released; it expires on its own", zap.String("lease_key", key), zap.Error(rerr))
				}
			}
			return nil, err
		}
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
			for _, s := range slots {
				if err := b.acquire(bg, s, s.lease(key)); err != nil {
					b.log.Warn("run lease not renewed", zap.String("lease_key", key), zap.Error(err))
				}
			}
		}
	}()
	var once sync.Once
	return func() {
		once.Do(func() {
			close(stop)
			<-done
			for _, s := range slots {
				if err := b.EndRun(bg, s.lease(key)); err != nil {
					b.log.Warn("run lease not released; it expires on its own", zap.String("lease_key", key), zap.Error(err))
				}
			}
		})
	}, nil
}

// acquire takes or renews the lease key in s, or returns the
// *budget.ExceededError of s's limit.
func (b *Budgets) acquire(ctx context.Context, s slot, key string) error {
	limit := s.max
	if limit <= 0 {
		limit = math.MaxInt32
	}
	now := b.clock.Now()
	ok, err := b.leases.AcquireRun(ctx, s.scope, key, limit, now, now.Add(b.policy.LeaseTTL))
	if err != nil {
		return fmt.Errorf("start run: %w", err)
	}
	if !ok {
		return &budget.ExceededError{Limit: s.limit, Used: int64(s.max), Max: int64(s.max), Team: s.team}
	}
	return nil
}
