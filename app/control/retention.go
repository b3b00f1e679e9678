package control

import (
	"context"
	"errors"
	"fmt"
	"time"

	"keygate/ports"
)

// Retention deletes, once they are older than the configured age, the
// details of detailed calls, the prompts the cache insight kept of every
// call (whole requests and shapes alike) and the fates of Tab suggestions,
// and erases conversations idle longer than the conversation retention
// setting (ports.ConversationEraser).
// A background runner calls Sweep periodically.
type Retention struct {
	settings *Settings
	purger   ports.DetailPurger
	prompts  ports.PromptPurger
	fates    ports.SuggestionFatePurger
	eraser   ports.ConversationEraser
	now      func() time.Time
}

// Bounds of one sweep's conversation erasure: batches of EraseBatch
// conversations, at most EraseBatches of them, so a first sweep over years
// of history does not hold the store for long; the next sweep goes on.
const (
	EraseBatch   = 100
	EraseBatches = 10
)

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

// EraseConversationsWith makes Sweep erase, through e, the conversations
// idle longer than the conversation retention setting. Call it before the
// first Sweep.
func (r *Retention) EraseConversationsWith(e ports.ConversationEraser) { r.eraser = e }

// Sweep deletes details, prompts and fates older than the retention
// setting and conversations idle longer than the conversation retention
// setting, and returns how many calls lost their details plus how many
// prompts, fates and conversations were deleted; with both settings 0 it
// deletes nothing.
func (r *Retention) Sweep(ctx context.Context) (int, error) {
	set, err := r.settings.Load(ctx)
	if err != nil {
		return 0, err
	}
	erased, err := r.eraseConversations(ctx, set.ConversationRetentionDays)
	if err != nil || set.RetentionHours == 0 {
		return erased, err
	}
	n, err := r.sweepDetails(ctx, set.RetentionHours)
	return erased + n, err
}

// eraseConversations erases conversations idle for more than days, in
// bounded batches. Several replicas may sweep at once: each erasure is
// one transaction that locks its conversation, and one already erased by
// another replica is skipped.
func (r *Retention) eraseConversations(ctx context.Context, days int) (int, error) {
	if days == 0 || r.eraser == nil {
		return 0, nil
	}
	cutoff := r.now().Add(-time.Duration(days) * 24 * time.Hour)
	n := 0
	for range EraseBatches {
		ids, err := r.eraser.StaleConversations(ctx, cutoff, EraseBatch)
		if err != nil {
			return n, fmt.Errorf("conversations idle since %s: %w", cutoff.Format(time.RFC3339), err)
		}
		for _, id := range ids {
			err := r.eraser.EraseConversation(ctx, id)
			switch {
			case errors.Is(err, ports.ErrNotFound):
			case err != nil:
				return n, err
			default:
				n++
			}
		}
		if len(ids) < EraseBatch {
			break
		}
	}
	return n, nil
}

func (r *Retention) sweepDetails(ctx context.Context, hours int) (int, error) {
	set := ServiceSettings{RetentionHours: hours}
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
