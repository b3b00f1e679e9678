package ports

import (
	"context"
	"time"
)

// RunLeases bounds how many runs one user has in progress across every
// replica. A lease expires on its own, so runs of a replica that died stop
// counting; a live run renews its lease before it expires.
//
// Every method returns ctx.Err() (wrapped) on a cancelled context and then
// have changed nothing.
type RunLeases interface {
	// AcquireRun takes or renews runID's lease for userID until until. It
	// reports false, and takes nothing, when userID already holds max
	// leases for other runs that expire after now (the caller's clock, so
	// the store and the use case agree on what has expired). Renewing a held lease always
	// succeeds. Concurrent acquisitions for one user are serialized, so
	// max is never exceeded.
	AcquireRun(ctx context.Context, userID, runID string, max int, now, until time.Time) (bool, error)

	// HeldRun reports whether runID holds a lease that expires after now
	// (the caller's clock, as for AcquireRun): a run in progress on some
	// replica. It reads only.
	HeldRun(ctx context.Context, runID string, now time.Time) (bool, error)

	// ReleaseRun drops runID's lease; releasing an unknown run is not an
	// error.
	ReleaseRun(ctx context.Context, runID string) error
}
