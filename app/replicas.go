package app

import (
	"context"
	"errors"
	"fmt"

	"go.uber.org/zap"

	"keygate/adapters/auth"
	"keygate/adapters/ca"
	"keygate/adapters/relstore"
	"keygate/adapters/secret"
	"keygate/app/company"
	"keygate/app/config"
)

// ReplicaChecked says that this process may serve next to the other
// replicas of its deployment (CheckReplica passed). Whatever writes with
// the secret key depends on it, so it runs after the check.
type ReplicaChecked struct{}

// ReplicaCheckOptions are what CheckReplica compares.
type ReplicaCheckOptions struct {
	Config    config.Config
	Gate      *auth.Gate
	Ring      *secret.Ring
	Authority *ca.Authority
	Store     *relstore.Store
	Logger    *zap.Logger
}

// CheckReplica refuses to start a replica that could not work next to the
// others on its database: a company deployment whose replicas would each
// generate their own secret key or CA, a secret key other than the one the
// deployment's replicas recorded in the database (compared by fingerprint,
// which reveals nothing of the key), and in company mode a CA other than
// theirs. The first replica records what the others must match. On SQLite
// (one process) a key mismatch is only logged: stored provider keys then do
// not open and must be entered again.
func CheckReplica(ctx context.Context, o ReplicaCheckOptions) (ReplicaChecked, error) {
	cfg := o.Config
	shape := company.Shape{
		Company:       o.Gate.Mode() != auth.ModeLocal,
		SharedStore:   cfg.DatabaseURL != "",
		SingleReplica: cfg.SingleReplica,
		KeyConfigured: cfg.Secrets.Key != "" || cfg.Secrets.KeyFile != "",
		CAConfigured:  cfg.CACert != "",
	}
	if err := shape.Check(); err != nil {
		return ReplicaChecked{}, fmt.Errorf("company mode on PostgreSQL with several replicas: %w", shapeFix(err))
	}
	marks := o.Store.Fingerprints()
	err := company.Agree(ctx, marks, company.Mark{Name: company.KeyMark, Mine: o.Ring.Fingerprint(), Older: o.Ring.OlderFingerprints()})
	switch {
	case errors.Is(err, company.ErrMismatch) && !shape.SharedStore:
		o.Logger.Warn("this data directory's secret key is not the one that sealed the stored provider keys; they do not open and must be entered again", zap.Error(err))
	case errors.Is(err, company.ErrMismatch):
		return ReplicaChecked{}, fmt.Errorf("this replica's secret key is not the one the other replicas of this database use (%w): "+
			"it could not open the provider keys, console sessions and relayed appends they sealed, nor they its. "+
			"Give every replica the same key (%s or %s); during a rotation keep the old key in %s. "+
			"If the deployment's key is lost, `keygate secret adopt` records this one instead (stored provider keys must then be entered again)",
			err, config.EnvSecretKeyFile, config.EnvSecretKey, config.EnvSecretPreviousKeyFile)
	case err != nil:
		return ReplicaChecked{}, fmt.Errorf("compare the secret key with the database's: %w", err)
	}
	if !shape.Company || !shape.SharedStore {
		return ReplicaChecked{}, nil
	}
	err = company.Agree(ctx, marks, company.Mark{Name: company.CAMark, Mine: o.Authority.Fingerprint()})
	switch {
	case errors.Is(err, company.ErrMismatch):
		return ReplicaChecked{}, fmt.Errorf("this replica's CA is not the one the other replicas of this database use (%w): "+
			"developers' machines trust one CA, so every replica must present certificates from it. "+
			"Give every replica the same %s and %s; after moving to a new CA on purpose, `keygate ca adopt` records it",
			err, config.EnvCACert, config.EnvCAKey)
	case err != nil:
		return ReplicaChecked{}, fmt.Errorf("compare the CA with the database's: %w", err)
	}
	return ReplicaChecked{}, nil
}

// shapeFix adds to each shape error the setting that fixes it.
func shapeFix(err error) error {
	var fixes []error
	if errors.Is(err, company.ErrGeneratedKey) {
		fixes = append(fixes, fmt.Errorf("%w: set %s (or %s) to one key every replica shares", company.ErrGeneratedKey, config.EnvSecretKeyFile, config.EnvSecretKey))
	}
	if errors.Is(err, company.ErrGeneratedCA) {
		fixes = append(fixes, fmt.Errorf("%w: set %s and %s to the company CA", company.ErrGeneratedCA, config.EnvCACert, config.EnvCAKey))
	}
	fixes = append(fixes, fmt.Errorf("or set %s=true if this is the only Keygate process on the database", config.EnvSingleReplica))
	return errors.Join(fixes...)
}
