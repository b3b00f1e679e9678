package ports

import (
	"context"
	"time"

	"keygate/domain/callrecord"
)

// CallLister lists call records for the console and its dashboard.
//
// It returns ctx.Err() (wrapped) on a cancelled context.
type CallLister interface {
	// CallRecords returns the records matching q, newest first: ordered by
	// Timing.RequestStarted descending, then CallID descending. At most
	// q.Limit records are returned (a Limit <= 0 means no limit).
	CallRecords(ctx context.Context, q CallQuery) ([]callrecord.Record, error)
}

// CallQuery filters a call list. Zero fields match everything.
type CallQuery struct {
	// Since and Until bound Timing.RequestStarted: Since <= start < Until.
	Since, Until time.Time
	// ModelID matches Model.ModelID exactly.
	ModelID        string
	Status         callrecord.Status
	ConversationID string
	// UserID matches the record's user exactly.
	UserID string
	// Kind matches the record's kind; a record stored without one is
	// callrecord.KindAgent.
	Kind callrecord.Kind
	// After continues a list: only records ordered after this one (older
	// start, or the same start and a smaller CallID) are returned.
	After *CallCursor
	Limit int
}

// CallCursor is the position of a record in the list order.
type CallCursor struct {
	Started time.Time
	CallID  string
}
