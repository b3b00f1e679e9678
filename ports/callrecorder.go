package ports

import (
	"context"

	"keygate/domain/callrecord"
)

// CallRecorder stores one record per provider attempt, and for detailed calls
// the request and the raw response chunks. Provider adapters call it; a
// recording failure never fails the model call (adapters log it).
//
// Every method must still work when the call's own context was cancelled:
// callers pass a context without cancellation (context.WithoutCancel) so that
// a cancelled call can still be marked cancelled.
type CallRecorder interface {
	// Start stores rec, which has StatusRunning. Starting the same CallID
	// twice replaces the running record.
	Start(ctx context.Context, rec callrecord.Record) error
	// Request stores the redacted request of a detailed call. It is called at
	// most once per call, after Start.
	Request(ctx context.Context, callID string, req callrecord.Request) error
	// Chunks appends raw response chunks of a detailed call. Calls arrive in
	// Seq order; chunks are never rewritten.
	Chunks(ctx context.Context, callID string, chunks []callrecord.Chunk) error
	// Finish stores the final state of a call (rec.Status is final). It
	// returns callrecord.ErrNotRunning if the stored record is not running,
	// so a record finishes exactly once.
	Finish(ctx context.Context, rec callrecord.Record) error
}
