package postgres

import (
	"context"
	"fmt"
	"sync"
	"time"

	"github.com/jackc/pgx/v5"
	"github.com/jackc/pgx/v5/pgxpool"
	"github.com/jackc/pgx/v5/stdlib"
	"github.com/pressly/goose/v3"
	"github.com/pressly/goose/v3/lock"
	"go.uber.org/zap"

	"keygate/adapters/relstore"
	"keygate/gen/sqlc/pgdb"
	"keygate/sql/postgres/migrations"
)

// DB is an open PostgreSQL store. It implements relstore.Engine.
type DB struct {
	pool   *pgxpool.Pool
	logger *zap.Logger
	// closed is closed by Close; the configuration listeners
	// (watchConfig) stop then and Close waits for them.
	closed    chan struct{}
	closeOnce sync.Once
	watchers  sync.WaitGroup
	// mu guards stores, the stores over db whose configuration caches the
	// listener keeps, and listening, whether it hears changes now.
	mu        sync.Mutex
	stores    []*relstore.Store
	listening bool
}

var _ relstore.Engine = (*DB)(nil)

// Open connects to dsn and applies pending migrations. logger is used as
// given (the caller names it).
func Open(ctx context.Context, dsn string, logger *zap.Logger) (*DB, error) {
	pool, err := pgxpool.New(ctx, dsn)
	if err != nil {
		return nil, fmt.Errorf("connect to postgres: %w", err)
	}
	db := &DB{pool: pool, logger: logger, closed: make(chan struct{})}
	if err := db.migrate(ctx); err != nil {
		pool.Close()
		return nil, err
	}
	db.watchers.Add(1)
	go db.watchConfig(context.WithoutCancel(ctx))
	return db, nil
}

func (db *DB) migrate(ctx context.Context) error {
	locker, err := lock.NewPostgresSessionLocker()
	if err != nil {
		return fmt.Errorf("prepare migration lock: %w", err)
	}
	sqlDB := stdlib.OpenDBFromPool(db.pool)
	defer sqlDB.Close()
	p, err := goose.NewProvider(goose.DialectPostgres, sqlDB, migrations.FS, goose.WithSessionLocker(locker))
	if err != nil {
		return fmt.Errorf("prepare migrations: %w", err)
	}
	res, err := p.Up(ctx)
	if err != nil {
		return fmt.Errorf("apply migrations: %w", err)
	}
	for _, r := range res {
		db.logger.Info("migration applied", zap.String("source", r.Source.Path), zap.Duration("took", r.Duration))
	}
	return nil
}

// Close stops the configuration listeners and closes the pool.
func (db *DB) Close() {
	db.closeOnce.Do(func() { close(db.closed) })
	db.watchers.Wait()
	db.pool.Close()
}

// Read implements relstore.Engine.
func (db *DB) Read(ctx context.Context, fn func(relstore.Tx) error) error {
	return db.inTx(ctx, pgx.TxOptions{IsoLevel: pgx.RepeatableRead, AccessMode: pgx.ReadOnly}, fn)
}

// Write implements relstore.Engine.
func (db *DB) Write(ctx context.Context, fn func(relstore.Tx) error) error {
	return db.inTx(ctx, pgx.TxOptions{IsoLevel: pgx.ReadCommitted}, fn)
}

func (db *DB) inTx(ctx context.Context, opts pgx.TxOptions, fn func(relstore.Tx) error) (err error) {
	if err := ctx.Err(); err != nil {
		return fmt.Errorf("begin: %w", err)
	}
	pgTx, err := db.pool.BeginTx(ctx, opts)
	if err != nil {
		return fmt.Errorf("begin: %w", interpretError(ctx, err))
	}
	defer func() {
		if p := recover(); p != nil {
			_ = pgTx.Rollback(context.WithoutCancel(ctx))
			panic(p)
		}
		if err != nil {
			_ = pgTx.Rollback(context.WithoutCancel(ctx))
		}
	}()
	if err = fn(tx{q: pgdb.New(pgTx)}); err != nil {
		return err
	}
	if err = ctx.Err(); err != nil {
		return fmt.Errorf("commit: %w", err)
	}
	if err = pgTx.Commit(ctx); err != nil {
		return fmt.Errorf("commit: %w", interpretError(ctx, err))
	}
	return nil
}

// tx implements relstore.Tx over one transaction's queries.
type tx struct{ q *pgdb.Queries }

var _ relstore.Tx = tx{}

// utc returns a stored time in UTC; the stored zero time stays zero.
func utc(t time.Time) time.Time {
	if t.IsZero() {
		return time.Time{}
	}
	return t.UTC()
}

// Inspect reports the schema of the database at dsn without changing it
// (no migration, no lock): keygate doctor asks before it opens the store.
// A database Keygate never started on has Current 0.
func Inspect(ctx context.Context, dsn string) (relstore.Schema, error) {
	pool, err := pgxpool.New(ctx, dsn)
	if err != nil {
		return relstore.Schema{}, fmt.Errorf("connect to postgres: %w", err)
	}
	defer pool.Close()
	if err := pool.Ping(ctx); err != nil {
		return relstore.Schema{}, fmt.Errorf("connect to postgres: %w", err)
	}
	var exists bool
	if err := pool.QueryRow(ctx, `SELECT to_regclass('goose_db_version') IS NOT NULL`).Scan(&exists); err != nil {
		return relstore.Schema{}, fmt.Errorf("read schema version: %w", err)
	}
	sqlDB := stdlib.OpenDBFromPool(pool)
	defer sqlDB.Close()
	p, err := goose.NewProvider(goose.DialectPostgres, sqlDB, migrations.FS)
	if err != nil {
		return relstore.Schema{}, fmt.Errorf("prepare migrations: %w", err)
	}
	return schemaOf(ctx, p, exists)
}

// schemaOf reads the versions from p; without a version table the current
// version is 0.
func schemaOf(ctx context.Context, p *goose.Provider, hasTable bool) (relstore.Schema, error) {
	sources := p.ListSources()
	s := relstore.Schema{Latest: sources[len(sources)-1].Version}
	if !hasTable {
		return s, nil
	}
	current, err := p.GetDBVersion(ctx)
	if err != nil {
		return relstore.Schema{}, fmt.Errorf("read schema version: %w", err)
	}
	s.Current = current
	return s, nil
}
