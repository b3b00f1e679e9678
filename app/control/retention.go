package control

import (
	"context"
	"fmt"
	"time"

	"keygate/ports"
)

// Retention deletes, once they are older than the configured age, the
// details of detailed calls, the prompts the cache insight kept of every
// call (whole requests and shapes alike) and the fates of Tab suggestions.
// A background runner calls Sweep periodically.
type Retention struct {
	settings *Settings
	purger   ports.DetailPurger
	prompts  ports.PromptPurger
	fates    ports.SuggestionFatePurger
	now      func() time.Time
}

// NewRetention returns the retention use case; now nil uses time.Now.
func NewRetention(settings *Settings, purger ports.DetailPurger, now func() time.Time) *Retention {
	if now == nil {
		now = time.Now
	}
	return &Retention{settings: settings, purger: purger, now: now}
}

// PurgePromptsWith makes Sweep delete the prompts kept in p as well. Call
// it before the first Sweep.
func (r *Retention) PurgePromptsWith(p ports.PromptPurger) { r.prompts = p }

// PurgeFatesWith makes Sweep delete the fates of Tab suggestions kept in p
// as well: the dashboard's acceptance rate of a window older than the
// retention age then counts no fates. Call it before the first Sweep.
func (r *Retention) PurgeFatesWith(p ports.SuggestionFatePurger) { r.fates = p }

// Sweep deletes details, prompts and fates older than the retention
// setting and returns how many calls lost their details plus how many
// prompts and fates were deleted; with retention 0 it deletes nothing.
func (r *Retention) Sweep(ctx context.Context) (int, error) {
	set, err := r.settings.Load(ctx)
	if err != nil {
		return 0, err
	}
	if set.RetentionHours == 0 {
		return 0, nil
	}
	cutoff := r.now().Add(-time.Duration(set.RetentionHours) * time.Hour)
	n, err := r.purger.PurgeDetails(ctx, cutoff)
	if err != nil {
		return n, fmt.Errorf("purge details before %s: %w", cutoff.Format(time.RFC3339), err)
	}
	if r.prompts != nil {
		p, err := r.prompts.PurgePrompts(ctx, cutoff)
		n += p
		if err != nil {
			return n, fmt.Errorf("purge prompts before %s: %w", cutoff.Format(time.RFC3339), err)
		}
	}
	if r.fates != nil {
		f, err := r.fates.PurgeFates(ctx, cutoff)
		n += f
		if err != nil {
			return n, fmt.Errorf("purge suggestion fates before %s: %w", cutoff.Format(time.RFC3339), err)
		}
	}
	return n, nil
}
