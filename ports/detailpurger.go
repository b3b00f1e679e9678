package ports

import (
	"context"
	"time"
)

// DetailPurger deletes the recorded requests and raw response chunks of
// detailed calls, which hold user code and can be large. The call records
// themselves (timings, usage, status) are kept.
type DetailPurger interface {
	// PurgeDetails deletes the details of calls whose request started
	// before cutoff and returns how many calls lost their details. Running
	// it again with the same cutoff deletes nothing more. A cancelled ctx
	// returns ctx.Err() (wrapped); details already deleted stay deleted.
	PurgeDetails(ctx context.Context, cutoff time.Time) (int, error)
}
