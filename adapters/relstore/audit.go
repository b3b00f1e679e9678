package relstore

import (
	"context"
	"fmt"
	"math"

	"keygate/domain/audit"
	"keygate/ports"
)

// auditRows are the audit log rows.
type auditRows interface {
	// InsertAudit returns the assigned sequence number.
	InsertAudit(ctx context.Context, e audit.Entry) (int64, error)
	// ListAudit returns entries with Seq < beforeSeq, newest first; an
	// empty actorID matches every actor.
	ListAudit(ctx context.Context, beforeSeq int64, actorID string, limit int32) ([]audit.Entry, error)
}

// Audit implements ports.AuditLog.
type Audit struct{ s *Store }

var _ ports.AuditLog = Audit{}

// Audit returns the audit log.
func (s *Store) Audit() Audit { return Audit{s} }

// AppendAudit implements ports.AuditLog.
func (a Audit) AppendAudit(ctx context.Context, e audit.Entry) (int64, error) {
	if err := e.Validate(); err != nil {
		return 0, fmt.Errorf("append audit entry: %w", err)
	}
	e.At = e.At.UTC()
	var seq int64
	err := a.s.engine.Write(ctx, func(tx Tx) error {
		var err error
		seq, err = tx.InsertAudit(ctx, e)
		return err
	})
	if err != nil {
		return 0, fmt.Errorf("append audit entry: %w", err)
	}
	return seq, nil
}

// AuditEntries implements ports.AuditLog.
func (a Audit) AuditEntries(ctx context.Context, q ports.AuditQuery) ([]audit.Entry, error) {
	before := q.BeforeSeq
	if before <= 0 {
		before = math.MaxInt64
	}
	limit := q.Limit
	if limit <= 0 {
		limit = 100
	}
	var out []audit.Entry
	err := a.s.engine.Read(ctx, func(tx Tx) error {
		var err error
		out, err = tx.ListAudit(ctx, before, q.ActorID, limit32(limit))
		return err
	})
	if err != nil {
		return nil, fmt.Errorf("list audit entries: %w", err)
	}
	return out, nil
}
