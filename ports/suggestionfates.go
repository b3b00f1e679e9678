package ports

import (
	"context"
	"time"

	"keygate/domain/tab"
)

// SuggestionFate is what a user did with one Cursor Tab suggestion.
type SuggestionFate struct {
	// UserID is the user the suggestion was made for; it scopes who may
	// read the fate, as it scopes call records.
	UserID string
	// RequestID is the client's id of the StreamCpp request the suggestion
	// answered; the call records of that prediction carry it as RunID.
	RequestID string
	Fate      tab.Fate
	// At is when the fate was reported; a zero At is stored as the time of
	// storing.
	At time.Time
}

// SuggestionFates keeps the fates of Tab suggestions, for the acceptance
// rate the dashboard shows.
//
// Every method returns ctx.Err() (wrapped) on a cancelled context and then
// has written nothing.
type SuggestionFates interface {
	// RecordFate stores f. A second fate for the same user and request id
	// replaces the first (a partial acceptance may be followed by a full
	// one). A fate with an empty RequestID or an unknown Fate is refused
	// with an error and nothing stored.
	RecordFate(ctx context.Context, f SuggestionFate) error
}
