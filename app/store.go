package app

import (
	"context"
	"errors"
	"fmt"

	"go.uber.org/zap"

	"keygate/adapters/postgres"
	"keygate/adapters/relstore"
	"keygate/adapters/sqlite"
	"keygate/app/company"
	"keygate/app/config"
	"keygate/app/run"
	"keygate/ports"
)

// readinessKey is a setting that is never written: reading it proves the
// database answers queries (ErrNotFound is the healthy answer).
const readinessKey = "keygate.readiness-probe"

// OpenStore opens the configured store and applies pending migrations:
// PostgreSQL when a database URL is configured, otherwise the embedded
// SQLite file in the data directory (created on first start).
func OpenStore(ctx context.Context, cfg config.Config, logger *zap.Logger, dir DataDir) (*relstore.Store, func(), error) {
	if cfg.DatabaseURL != "" {
		db, err := postgres.Open(ctx, cfg.DatabaseURL, logger.Named("postgres"))
		if err != nil {
			return nil, nil, fmt.Errorf("open postgres store: %w", err)
		}
		logger.Info("store", zap.String("engine", "postgres"))
		return postgres.NewStore(db), db.Close, nil
	}
	db, err := sqlite.Open(ctx, string(dir), logger.Named("sqlite"))
	if err != nil {
		return nil, nil, fmt.Errorf("open sqlite store: %w", err)
	}
	logger.Info("store", zap.String("engine", "sqlite"), zap.String("path", db.Path()))
	return sqlite.NewStore(db), func() {
		if err := db.Close(); err != nil {
			logger.Warn("close sqlite store", zap.Error(err))
		}
	}, nil
}

// OpenAppendRelay carries BidiAppends between Keygate processes that share
// the PostgreSQL database (see cursor.Options.Relay); nil on SQLite or with
// --single-replica. It has a pool of its own, so that its listening
// connection and its forwards never wait behind store queries. Relayed
// appends carry Cursor's credentials and the prompt, so they are sealed at
// rest; the readiness check reports appends that do not open here.
func OpenAppendRelay(ctx context.Context, cfg config.Config, box ports.SecretBox, logger *zap.Logger) (*company.SealedRelay, func(), error) {
	if cfg.DatabaseURL == "" || cfg.SingleReplica {
		return nil, func() {}, nil
	}
	log := logger.Named("relay")
	db, err := postgres.Open(ctx, cfg.DatabaseURL, log)
	if err != nil {
		return nil, nil, fmt.Errorf("open append relay: %w", err)
	}
	relay, err := postgres.NewRelay(ctx, db, postgres.RelayOptions{LeaseTTL: cfg.RelayLease}, log)
	if err != nil {
		db.Close()
		return nil, nil, fmt.Errorf("open append relay: %w", err)
	}
	logger.Info("append relay between replicas", zap.String("engine", "postgres"))
	return company.SealRelay(relay, box, run.SystemClock{}, logger), func() {
		relay.Close()
		db.Close()
	}, nil
}

// storeReady is the store's readiness check.
func storeReady(s *relstore.Store) func(context.Context) error {
	settings := s.Stores().Settings
	return func(ctx context.Context) error {
		_, err := settings.Setting(ctx, readinessKey)
		if err == nil || errors.Is(err, ports.ErrNotFound) {
			return nil
		}
		return err
	}
}
