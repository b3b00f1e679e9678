package company

import (
	"context"
	"encoding/json"
	"fmt"

	"keygate/domain/access"
	"keygate/domain/audit"
	"keygate/ports"
)

// Auditor records administrator actions with secrets masked and shows
// them to administrators.
type Auditor struct {
	log   ports.AuditLog
	clock ports.Clock
}

// NewAuditor returns the audit use case.
func NewAuditor(log ports.AuditLog, clock ports.Clock) *Auditor {
	return &Auditor{log: log, clock: clock}
}

// Record stores that caller did action (as "noun.verb") to target.
// before and after are the object's states, marshalled to JSON and masked
// with audit.Mask (nil: the object did not exist). A ports.ModelConfig can
// be passed as it is: its SealedAPIKey field is masked like any key.
func (a *Auditor) Record(ctx context.Context, caller access.Principal, action, target string, before, after any) error {
	b, err := marshal(before)
	if err != nil {
		return fmt.Errorf("audit %s: %w", action, err)
	}
	af, err := marshal(after)
	if err != nil {
		return fmt.Errorf("audit %s: %w", action, err)
	}
	mb, ma, err := audit.Mask(b, af)
	if err != nil {
		return fmt.Errorf("audit %s: %w", action, err)
	}
	_, err = a.log.AppendAudit(ctx, audit.Entry{
		At: a.clock.Now(), Actor: caller.Identity, Role: string(caller.Role),
		Action: action, Target: target, Before: mb, After: ma,
	})
	return err
}

// Entries returns audit entries to an administrator (access.ErrDenied for
// anyone else).
func (a *Auditor) Entries(ctx context.Context, caller access.Principal, q ports.AuditQuery) ([]audit.Entry, error) {
	if err := caller.RequireAdmin(); err != nil {
		return nil, fmt.Errorf("read audit log: %w", err)
	}
	return a.log.AuditEntries(ctx, q)
}

func marshal(v any) ([]byte, error) {
	if v == nil {
		return nil, nil
	}
	return json.Marshal(v)
}
