package sqlite

import (
	"context"
	"database/sql"
	"errors"
	"fmt"
	"net/url"
	"os"
	"path/filepath"
	"time"

	"github.com/pressly/goose/v3"
	"go.uber.org/zap"
	_ "modernc.org/sqlite" // registers the "sqlite" driver

	"keygate/adapters/relstore"
	"keygate/gen/sqlc/sqlitedb"
	"keygate/sql/sqlite/migrations"
)

// FileName is the database file inside the data directory.
const FileName = "keygate.db"

// DB is an open SQLite store. It implements relstore.Engine.
type DB struct {
	writer *sql.DB
	reader *sql.DB
	// writes and reads hold every query prepared on the writer and the
	// reader pool; a transaction uses them through WithTx, so a query is
	// compiled once per connection instead of on every call.
	writes *sqlitedb.Queries
	reads  *sqlitedb.Queries
	// group is the writer connection's only user (groupcommit.go).
	group *groupCommit
	// ckpt copies the write-ahead log into the database file.
	ckpt   *checkpointer
	path   string
	logger *zap.Logger
}

var _ relstore.Engine = (*DB)(nil)

// Open opens (creating on first start) the database in dataDir and applies
// pending migrations. The directory is created with mode 0700 if missing,
// the database file and its -wal and -shm files with mode 0600.
// logger is used as given (the caller names it).
func Open(ctx context.Context, dataDir string, logger *zap.Logger) (*DB, error) {
	if err := os.MkdirAll(dataDir, 0o700); err != nil {
		return nil, fmt.Errorf("create data directory: %w", err)
	}
	path := filepath.Join(dataDir, FileName)
	if err := restrictFile(path); err != nil {
		return nil, err
	}
	writer, err := sql.Open("sqlite", dsn(path, true))
	if err != nil {
		return nil, fmt.Errorf("open sqlite %s: %w", path, err)
	}
	writer.SetMaxOpenConns(1)
	reader, err := sql.Open("sqlite", dsn(path, false))
	if err != nil {
		_ = writer.Close()
		return nil, fmt.Errorf("open sqlite %s: %w", path, err)
	}
	reader.SetMaxOpenConns(4)
	db := &DB{writer: writer, reader: reader, path: path, logger: logger}
	if err := db.migrate(ctx); err != nil {
		_ = db.Close()
		return nil, err
	}
	if err := db.prepare(ctx); err != nil {
		_ = db.Close()
		return nil, err
	}
	db.ckpt = newCheckpointer(db.reader, logger)
	db.group = newGroupCommit(db)
	db.logger.Info("store opened", zap.String("path", path))
	return db, nil
}

// dsn builds a modernc DSN. Every connection gets WAL, a busy timeout and
// foreign keys; the writer's transactions begin IMMEDIATE so the write lock
// is taken up front rather than on the first write (no upgrade deadlocks).
func dsn(path string, writer bool) string {
	q := url.Values{}
	q.Add("_pragma", "busy_timeout(10000)")
	q.Add("_pragma", "foreign_keys(1)")
	q.Add("_pragma", "journal_mode(WAL)")
	q.Add("_pragma", "synchronous(NORMAL)")
	if writer {
		q.Set("_txlock", "immediate")
		// The writer never copies the log back into the database file
		// itself: a checkpointer does that beside it (checkpoint.go), so
		// no commit pays for it.
		q.Add("_pragma", "wal_autocheckpoint(0)")
	}
	u := url.URL{Scheme: "file", Path: path, RawQuery: q.Encode()}
	return u.String()
}

func (db *DB) migrate(ctx context.Context) error {
	p, err := goose.NewProvider(goose.DialectSQLite3, db.writer, migrations.FS)
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

// prepare prepares every query on both pools; it runs after the
// migrations, since a statement is compiled against the schema.
func (db *DB) prepare(ctx context.Context) error {
	var err error
	if db.writes, err = sqlitedb.Prepare(ctx, db.writer); err != nil {
		return fmt.Errorf("prepare queries: %w", err)
	}
	if db.reads, err = sqlitedb.Prepare(ctx, db.reader); err != nil {
		return fmt.Errorf("prepare queries: %w", err)
	}
	return nil
}

// Path returns the database file path.
func (db *DB) Path() string { return db.path }

// Close closes both pools. The file stays; reopening keeps everything.
func (db *DB) Close() error {
	if db.group != nil {
		db.group.close()
	}
	if db.ckpt != nil {
		db.ckpt.close()
	}
	var errs []error
	for _, q := range []*sqlitedb.Queries{db.reads, db.writes} {
		if q != nil {
			errs = append(errs, q.Close())
		}
	}
	return errors.Join(append(errs, db.reader.Close(), db.writer.Close())...)
}

// Read implements relstore.Engine with a read transaction on the reader
// pool, so multi-query reads see one snapshot.
func (db *DB) Read(ctx context.Context, fn func(relstore.Tx) error) error {
	return db.inTx(ctx, db.reader, db.reads, &sql.TxOptions{ReadOnly: true}, fn)
}

// Write implements relstore.Engine on the single writer connection;
// writes that queue together commit together (groupcommit.go).
func (db *DB) Write(ctx context.Context, fn func(relstore.Tx) error) error {
	return db.group.write(ctx, fn)
}

func (db *DB) inTx(ctx context.Context, pool *sql.DB, queries *sqlitedb.Queries, opts *sql.TxOptions, fn func(relstore.Tx) error) (err error) {
	if err := ctx.Err(); err != nil {
		return fmt.Errorf("begin: %w", err)
	}
	sqlTx, err := pool.BeginTx(ctx, opts)
	if err != nil {
		return fmt.Errorf("begin: %w", interpretError(ctx, err))
	}
	defer func() {
		if p := recover(); p != nil {
			_ = sqlTx.Rollback()
			panic(p)
		}
		if err != nil {
			_ = sqlTx.Rollback()
		}
	}()
	if err = fn(tx{q: queries.WithTx(sqlTx)}); err != nil {
		return err
	}
	if err = ctx.Err(); err != nil {
		return fmt.Errorf("commit: %w", err)
	}
	if err = sqlTx.Commit(); err != nil {
		return fmt.Errorf("commit: %w", interpretError(ctx, err))
	}
	return nil
}

// tx implements relstore.Tx over one transaction's queries.
type tx struct{ q *sqlitedb.Queries }

var _ relstore.Tx = tx{}

// ms and fromMS convert times to stored milliseconds; the zero time is 0.
func ms(t time.Time) int64 {
	if t.IsZero() {
		return 0
	}
	return t.UnixMilli()
}

func fromMS(v int64) time.Time {
	if v == 0 {
		return time.Time{}
	}
	return time.UnixMilli(v).UTC()
}

// Inspect reports the schema of the database in dataDir without creating
// or changing anything: keygate doctor asks before it opens the store. A
// missing database file is fs.ErrNotExist (wrapped).
func Inspect(ctx context.Context, dataDir string) (relstore.Schema, error) {
	path := filepath.Join(dataDir, FileName)
	if _, err := os.Stat(path); err != nil {
		return relstore.Schema{}, fmt.Errorf("open sqlite: %w", err)
	}
	u := url.URL{Scheme: "file", Path: path, RawQuery: url.Values{"mode": {"ro"}}.Encode()}
	db, err := sql.Open("sqlite", u.String())
	if err != nil {
		return relstore.Schema{}, fmt.Errorf("open sqlite %s: %w", path, err)
	}
	defer db.Close()
	var n int
	if err := db.QueryRowContext(ctx, `SELECT count(*) FROM sqlite_master WHERE type = 'table' AND name = 'goose_db_version'`).Scan(&n); err != nil {
		return relstore.Schema{}, fmt.Errorf("read schema version: %w", err)
	}
	p, err := goose.NewProvider(goose.DialectSQLite3, db, migrations.FS)
	if err != nil {
		return relstore.Schema{}, fmt.Errorf("prepare migrations: %w", err)
	}
	sources := p.ListSources()
	s := relstore.Schema{Latest: sources[len(sources)-1].Version}
	if n == 0 {
		return s, nil
	}
	if s.Current, err = p.GetDBVersion(ctx); err != nil {
		return relstore.Schema{}, fmt.Errorf("read schema version: %w", err)
	}
	return s, nil
}
