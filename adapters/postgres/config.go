package postgres

import (
	"context"
	"errors"
	"fmt"
	"time"

	"github.com/jackc/pgx/v5"
	"go.uber.org/zap"

	"keygate/adapters/relstore"
)

// configChannel is the channel migration 00220's triggers notify when a
// model configuration, a provider or a provider's key changes.
const configChannel = "keygate_config"

const (
	// configIdle is how long the listener waits for a notification before
	// it checks that its connection is alive: a connection that died
	// silently is noticed within configIdle plus configPing.
	configIdle = 10 * time.Second
	configPing = 5 * time.Second
	// configRetryMax caps the wait between reconnections.
	configRetryMax = 5 * time.Second
)

// watchConfig keeps the cached model configurations and providers of every
// store over db (NewStore) true to the database every replica shares: on
// its own connection it listens on configChannel and drops the stores'
// caches at each notification. While it is not listening (before its first
// LISTEN, after a lost connection) the stores serve every read from the
// database. It runs until db closes.
func (db *DB) watchConfig(ctx context.Context) {
	defer db.watchers.Done()
	ctx, cancel := context.WithCancel(ctx)
	defer cancel()
	go func() {
		select {
		case <-db.closed:
			cancel()
		case <-ctx.Done():
		}
	}()
	wait := 100 * time.Millisecond
	for ctx.Err() == nil {
		err := db.listenConfig(ctx)
		db.hearing(false)
		if ctx.Err() != nil {
			return
		}
		db.logger.Warn("model configuration changes unheard; configurations are read from the database until they are heard again", zap.Error(err))
		select {
		case <-ctx.Done():
			return
		case <-time.After(wait):
		}
		wait = min(2*wait, configRetryMax)
	}
}

// watched adds s to the stores whose caches the listener keeps.
func (db *DB) watched(s *relstore.Store) {
	db.mu.Lock()
	defer db.mu.Unlock()
	db.stores = append(db.stores, s)
	s.Watching(db.listening)
}

// hearing tells every store whether changes are heard.
func (db *DB) hearing(on bool) {
	db.mu.Lock()
	defer db.mu.Unlock()
	db.listening = on
	for _, s := range db.stores {
		s.Watching(on)
	}
}

// changed drops every store's cache.
func (db *DB) changed() {
	db.mu.Lock()
	defer db.mu.Unlock()
	for _, s := range db.stores {
		s.ConfigChanged()
	}
}

// listenConfig listens on one connection until it fails or ctx ends.
func (db *DB) listenConfig(ctx context.Context) error {
	conn, err := pgx.ConnectConfig(ctx, db.pool.Config().ConnConfig)
	if err != nil {
		return fmt.Errorf("connect to listen: %w", err)
	}
	defer func() {
		closeCtx, cancel := context.WithTimeout(context.WithoutCancel(ctx), time.Second)
		defer cancel()
		_ = conn.Close(closeCtx)
	}()
	if _, err := conn.Exec(ctx, "LISTEN "+configChannel); err != nil {
		return fmt.Errorf("listen: %w", err)
	}
	// From here every committed change is heard; one committed before is
	// not cached (Watching drops the caches).
	db.hearing(true)
	for {
		waitCtx, cancel := context.WithTimeout(ctx, configIdle)
		_, err := conn.WaitForNotification(waitCtx)
		cancel()
		switch {
		case err == nil:
			db.changed()
		case ctx.Err() != nil:
			return ctx.Err()
		case errors.Is(err, context.DeadlineExceeded):
			pingCtx, cancel := context.WithTimeout(ctx, configPing)
			err := conn.Ping(pingCtx)
			cancel()
			if err != nil {
				return fmt.Errorf("ping: %w", err)
			}
		default:
			return fmt.Errorf("wait for notification: %w", err)
		}
	}
}
