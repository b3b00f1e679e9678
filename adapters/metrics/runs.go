package metrics

import (
	"context"

	"keygate/domain/conversation"
	"keygate/ports"
)

// Runs wraps next so that started and finished runs are counted. Only
// successful store writes count: a refused claim started nothing.
func (m *Metrics) Runs(next ports.RunStore) ports.RunStore {
	return runs{RunStore: next, m: m}
}

type runs struct {
	ports.RunStore
	m *Metrics
}

func (r runs) Claim(ctx context.Context, c ports.RunClaim) (string, error) {
	replaced, err := r.RunStore.Claim(ctx, c)
	if err == nil {
		r.claimed(c, replaced)
	}
	return replaced, err
}

func (r runs) ClaimTurn(ctx context.Context, c ports.RunClaim, initial []conversation.Message) (ports.ClaimedTurn, error) {
	t, err := r.RunStore.ClaimTurn(ctx, c, initial)
	if err == nil {
		r.claimed(c, t.Replaced)
	}
	return t, err
}

// claimed counts a run started and the one it replaced.
func (r runs) claimed(c ports.RunClaim, replaced string) {
	kind := c.Kind
	if kind == "" {
		kind = "agent"
	}
	r.m.runsStarted.WithLabelValues(kind).Inc()
	if replaced != "" {
		r.m.runsFinished.WithLabelValues(ports.RunCancelled.String()).Inc()
	}
}

func (r runs) Finish(ctx context.Context, runID string, end ports.RunEnd) error {
	err := r.RunStore.Finish(ctx, runID, end)
	if err == nil {
		r.m.runsFinished.WithLabelValues(end.Status.String()).Inc()
	}
	return err
}
