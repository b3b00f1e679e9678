package ports

import (
	"context"

	"keygate/domain/callrecord"
)

// CallRecordReader reads back what a [CallRecorder] stored, for the console
// and for specs.
//
// Both methods return ctx.Err() (wrapped) on a cancelled context.
type CallRecordReader interface {
	// CallRecord returns the record of one attempt, or ErrNotFound.
	CallRecord(ctx context.Context, callID string) (callrecord.Record, error)

	// CallDetail returns the recorded request and the response chunks in
	// Seq order of a detailed call. ErrNotFound if no request was recorded.
	CallDetail(ctx context.Context, callID string) (callrecord.Request, []callrecord.Chunk, error)
}
