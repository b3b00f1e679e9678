package control

import (
	"context"
	"time"

	"go.uber.org/zap"

	appcontrol "keygate/app/control"
)

// RunRetention sweeps detailed records once at start and then every
// interval until ctx is cancelled. Failures are logged and retried at the
// next tick: a failed sweep loses nothing, the records just stay longer.
func RunRetention(ctx context.Context, r *appcontrol.Retention, interval time.Duration, log *zap.Logger) {
	log = log.Named("retention")
	tick := time.NewTicker(interval)
	defer tick.Stop()
	for {
		n, err := r.Sweep(ctx)
		switch {
		case err != nil && ctx.Err() == nil:
			log.Warn("retention sweep failed", zap.Error(err))
		case n > 0:
			log.Info("deleted expired call details", zap.Int("calls", n))
		}
		select {
		case <-ctx.Done():
			return
		case <-tick.C:
		}
	}
}
