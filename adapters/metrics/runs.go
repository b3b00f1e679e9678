package metrics

import (
	"context"

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
		kind := c.Kind
		if kind == "" {
			kind = "agent"
		}
		r.m.runsStarted.WithLabelValues(kind).Inc()
		if replaced != "" {
			r.m.runsFinished.WithLabelValues(ports.RunCancelled.String()).Inc()
		}
	}
	return replaced, err
}

func (r runs) Finish(ctx context.Context, runID string, end ports.RunEnd) error {
	err := r.RunStore.Finish(ctx, runID, end)
	if err == nil {
		r.m.runsFinished.WithLabelValues(end.Status.String()).Inc()
	}
	return err
}
