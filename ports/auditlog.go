package ports

import (
	"context"

	"keygate/domain/audit"
)

// AuditLog keeps the audit entries of administrator actions. Entries are
// append-only: nothing updates or deletes them.
//
// Both methods return ctx.Err() (wrapped) on a cancelled context; a
// cancelled append has stored nothing.
type AuditLog interface {
	// AppendAudit stores e (which passed Validate; its Seq is ignored) and
	// returns the sequence number the store assigned. Sequence numbers
	// increase with every append.
	AppendAudit(ctx context.Context, e audit.Entry) (int64, error)

	// AuditEntries returns entries newest first (by Seq) that match q.
	AuditEntries(ctx context.Context, q AuditQuery) ([]audit.Entry, error)
}

// AuditQuery selects audit entries; zero fields do not filter.
type AuditQuery struct {
	// BeforeSeq returns only entries older than this sequence number: the
	// cursor for the next page.
	BeforeSeq int64
	// ActorID returns only one user's actions.
	ActorID string
	// Limit bounds the answer; <= 0 means 100.
	Limit int
}
