package company

import (
	"context"
	"errors"
	"fmt"
	"slices"

	"keygate/ports"
)

// The fingerprints the replicas of a deployment agree on, by their name in
// the fingerprint store.
const (
	// KeyMark is the secret key's: every replica must open what another
	// sealed (provider keys, sessions, relayed appends).
	KeyMark = "secret_key"
	// CAMark is the company CA's: developers' machines trust one CA, so
	// every replica must present certificates from it.
	CAMark = "ca"
)

// Shape is how a replica is deployed, as far as its start checks care.
type Shape struct {
	// Company: console sign-in is not local.
	Company bool
	// SharedStore: the store is a database other processes may share
	// (PostgreSQL), not a file of this process's data directory.
	SharedStore bool
	// SingleReplica: the operator says this is the only process on it.
	SingleReplica bool
	// KeyConfigured and CAConfigured: the secret key and the CA come from
	// the configuration, not from files generated in the data directory.
	KeyConfigured, CAConfigured bool
}

// Replicated reports whether several replicas may share the store.
func (s Shape) Replicated() bool { return s.SharedStore && !s.SingleReplica }

// Errors of Shape.Check.
var (
	// ErrGeneratedKey: replicas would each generate a secret key of their
	// own, and none could open what another sealed.
	ErrGeneratedKey = errors.New("the secret key is generated in the data directory, so each replica would have its own")
	// ErrGeneratedCA: replicas would each generate a CA of their own, and
	// developers' machines trust only one.
	ErrGeneratedCA = errors.New("the CA is generated in the data directory, so each replica would have its own")
)

// Check refuses a company deployment whose replicas share a database but
// would each generate their own secret key or CA: it reports every problem
// at once (ErrGeneratedKey, ErrGeneratedCA, joined).
func (s Shape) Check() error {
	if !s.Company || !s.Replicated() {
		return nil
	}
	var errs []error
	if !s.KeyConfigured {
		errs = append(errs, ErrGeneratedKey)
	}
	if !s.CAConfigured {
		errs = append(errs, ErrGeneratedCA)
	}
	return errors.Join(errs...)
}

// Mark is one thing a replica must share with the other replicas of its
// deployment, as this replica has it: its fingerprint, and the older
// fingerprints it accepts (the secret keys a rotation moves away from,
// which it still opens).
type Mark struct {
	Name  string
	Mine  string
	Older []string
}

// ErrMismatch matches every *MismatchError.
var ErrMismatch = errors.New("fingerprint mismatch")

// MismatchError means a replica's fingerprint is not the one its database
// recorded for the deployment. Both are safe to show: a fingerprint reveals
// nothing of what it names.
type MismatchError struct {
	Name, Mine, Recorded string
}

func (e *MismatchError) Error() string {
	return fmt.Sprintf("%s fingerprint %s is not %s, the one recorded in the database by this deployment's replicas",
		e.Name, Short(e.Mine), Short(e.Recorded))
}

// Is makes errors.Is(err, ErrMismatch) hold.
func (e *MismatchError) Is(target error) bool { return target == ErrMismatch }

// Short is the part of a fingerprint messages show: 16 hex digits tell
// fingerprints apart as surely as operators need.
func Short(fp string) string {
	if len(fp) > 16 {
		return fp[:16]
	}
	return fp
}

// Agree makes m the deployment's, as a replica does at start: it records
// m.Mine when the database holds nothing under m.Name, accepts the same
// fingerprint, moves the record to m.Mine when it holds one of m.Older
// (this replica carries the key a rotation moves to; replicas still on the
// old key are refused from their next start), and otherwise returns a
// *MismatchError.
func Agree(ctx context.Context, store ports.FingerprintStore, m Mark) error {
	for {
		recorded, err := store.RecordFingerprint(ctx, m.Name, m.Mine)
		if err != nil {
			return err
		}
		switch {
		case recorded == m.Mine:
			return nil
		case !slices.Contains(m.Older, recorded):
			return &MismatchError{Name: m.Name, Mine: m.Mine, Recorded: recorded}
		}
		err = store.ReplaceFingerprint(ctx, m.Name, recorded, m.Mine)
		if !errors.Is(err, ports.ErrConflict) && !errors.Is(err, ports.ErrNotFound) {
			return err
		}
		// Another replica changed the record meanwhile: look again.
	}
}

// Compare is Agree without writing, for a check that must change nothing:
// nil when the recorded fingerprint is m.Mine or one of m.Older, a
// *MismatchError when it is another, ports.ErrNotFound (wrapped) when none
// is recorded.
func Compare(ctx context.Context, store ports.FingerprintStore, m Mark) error {
	recorded, err := store.Fingerprint(ctx, m.Name)
	if err != nil {
		return err
	}
	if recorded == m.Mine || slices.Contains(m.Older, recorded) {
		return nil
	}
	return &MismatchError{Name: m.Name, Mine: m.Mine, Recorded: recorded}
}

// Adopt records fp under name whatever was recorded before, after a
// deliberate change: a secret key that was lost, a new CA. It returns the
// fingerprint it replaced ("" when none was recorded). Replicas that still
// have the old one are refused from their next start.
func Adopt(ctx context.Context, store ports.FingerprintStore, name, fp string) (string, error) {
	for {
		recorded, err := store.RecordFingerprint(ctx, name, fp)
		if err != nil {
			return "", err
		}
		if recorded == fp {
			return "", nil
		}
		err = store.ReplaceFingerprint(ctx, name, recorded, fp)
		if err == nil {
			return recorded, nil
		}
		if !errors.Is(err, ports.ErrConflict) && !errors.Is(err, ports.ErrNotFound) {
			return "", err
		}
	}
}
