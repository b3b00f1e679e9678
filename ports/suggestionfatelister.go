package ports

import (
	"context"
	"time"
)

// FateQuery selects the fates of Tab requests by when their calls started.
type FateQuery struct {
	// Since and Until bound the start of the request's Tab call records:
	// a fate is returned when one call record of kind callrecord.KindTab,
	// of the same user and with the fate's RequestID as its RunID, started
	// in [Since, Until). A zero Until means no upper bound.
	Since, Until time.Time
	// UserID matches the fate's user exactly; empty matches every user.
	UserID string
}

// SuggestionFateLister reads the fates of Tab suggestions for the
// dashboard, which joins them to the Tab call records of the same window.
//
// It returns ctx.Err() (wrapped) on a cancelled context.
type SuggestionFateLister interface {
	// SuggestionFates returns the fates q selects, one per user and
	// request id (the latest recorded), ordered by user then request id.
	SuggestionFates(ctx context.Context, q FateQuery) ([]SuggestionFate, error)
}

// SuggestionFatePurger deletes fates past the retention age.
type SuggestionFatePurger interface {
	// PurgeFates deletes the fates recorded before cutoff and returns how
	// many; running it again with the same cutoff deletes nothing more.
	PurgeFates(ctx context.Context, cutoff time.Time) (int, error)
}
