package ports

import (
	"context"
	"time"

	"keygate/domain/routing"
)

// RouteHealth keeps the health of provider keys and route targets, shared
// by every replica through the store: a key one replica saw refused rests
// on all of them. Subjects are opaque ids (routing.KeySubject,
// routing.TargetSubject).
//
// Every method returns ctx.Err() (wrapped) on a cancelled context; a
// cancelled write has changed nothing.
type RouteHealth interface {
	// Health returns the health of each subject asked that has any; a
	// subject never recorded is absent (the zero Health).
	Health(ctx context.Context, subjects []string) (map[string]routing.Health, error)

	// RecordFailure applies f to subject's health atomically (see
	// routing.Health.Record), so that failures recorded at once by several
	// replicas are all counted, and returns the health after.
	RecordFailure(ctx context.Context, subject string, f routing.Failure) (routing.Health, error)

	// RecordSuccess clears subject's failure counts and rest (see
	// routing.Health.Recovered); a subject never recorded stays absent.
	RecordSuccess(ctx context.Context, subject string, at time.Time) error
}
