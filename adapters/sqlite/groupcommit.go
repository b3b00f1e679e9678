package sqlite

import (
	"context"
	"database/sql"
	"errors"
	"fmt"
	"runtime"
	"sync"

	"keygate/adapters/relstore"
)

// maxGroup bounds how many queued writes share one transaction, so that
// the first of a group does not wait on an unbounded tail.
const maxGroup = 16

// errClosed is a write asked of a closed store.
var errClosed = errors.New("sqlite store closed")

// writeReq is one Write waiting for the writer. The caller's context
// stays in the closure write builds: the writer goroutine receives it as
// the first parameter of the function it hands to with, never as a field.
type writeReq struct {
	with func(do func(ctx context.Context, fn func(relstore.Tx) error) writeResult) writeResult
	done chan writeResult
}

// writeResult is a write's outcome; panicked carries a panic of its fn to
// the caller's goroutine.
type writeResult struct {
	err      error
	panicked any
}

// groupCommit is the only user of the writer connection. A write that
// finds the writer idle runs alone, as before; writes that queue while a
// transaction commits (turns that start together) run together in the
// next one, each inside a savepoint of its own: its fn sees the writes of
// those before it, as if they had run one after the other, and a failing
// fn rolls back to its savepoint alone. One BEGIN and one COMMIT (one WAL
// append, the pages several writes touch written once) then serve the
// whole group, which is what SQLite's single writer pays most for.
type groupCommit struct {
	db    *DB
	queue chan *writeReq
	quit  chan struct{}
	done  chan struct{}
	once  sync.Once
}

func newGroupCommit(db *DB) *groupCommit {
	g := &groupCommit{db: db, queue: make(chan *writeReq), quit: make(chan struct{}), done: make(chan struct{})}
	go g.loop()
	return g
}

// write hands fn to the writer and waits for its outcome.
func (g *groupCommit) write(ctx context.Context, fn func(relstore.Tx) error) error {
	if err := ctx.Err(); err != nil {
		return fmt.Errorf("begin: %w", err)
	}
	r := &writeReq{
		with: func(do func(context.Context, func(relstore.Tx) error) writeResult) writeResult { return do(ctx, fn) },
		done: make(chan writeResult, 1),
	}
	select {
	case g.queue <- r:
	case <-ctx.Done():
		return fmt.Errorf("begin: %w", ctx.Err())
	case <-g.quit:
		return errClosed
	}
	res := <-r.done
	if res.panicked != nil {
		panic(res.panicked)
	}
	return res.err
}

func (g *groupCommit) close() {
	g.once.Do(func() { close(g.quit) })
	<-g.done
}

func (g *groupCommit) loop() {
	defer close(g.done)
	for {
		var first *writeReq
		select {
		case first = <-g.queue:
		case <-g.quit:
			return
		}
		group := []*writeReq{first}
	gather:
		for len(group) < maxGroup {
			select {
			case r := <-g.queue:
				group = append(group, r)
			default:
				break gather
			}
		}
		if len(group) == 1 {
			g.alone(first)
			continue
		}
		g.together(group)
	}
}

// alone runs one write in a transaction of its own.
func (g *groupCommit) alone(r *writeReq) {
	res := r.with(func(ctx context.Context, fn func(relstore.Tx) error) (res writeResult) {
		defer func() { res.panicked = recover() }()
		res.err = g.db.inTx(ctx, g.db.writer, g.db.writes, nil, fn)
		return res
	})
	if res.err == nil && res.panicked == nil {
		g.db.ckpt.wrote()
	}
	r.done <- res
}

// together runs a group in one transaction, each write in a savepoint.
// Should the transaction itself fail (begin, a savepoint, the commit), the
// writes not yet answered run alone instead, so that one write's broken
// transaction fails no other.
func (g *groupCommit) together(group []*writeReq) {
	// The group's transaction is not any one caller's: each caller's
	// context bounds its own statements.
	bg := context.Background()
	sqlTx, err := g.db.writer.BeginTx(bg, nil)
	if err != nil {
		g.oneByOne(group)
		return
	}
	var ok []*writeReq
	for i, r := range group {
		if i > 0 {
			// A group runs its writes back to back on one goroutine; let
			// the others (a stream's next token) run between them, as they
			// did between separate transactions, instead of waiting for
			// the whole group or for the scheduler to preempt it.
			runtime.Gosched()
		}
		var ended, broken bool
		res := r.with(func(ctx context.Context, fn func(relstore.Tx) error) writeResult {
			if err := ctx.Err(); err != nil {
				ended = true
				return writeResult{err: fmt.Errorf("begin: %w", err)}
			}
			if _, err := sqlTx.ExecContext(bg, "SAVEPOINT keygate_write"); err != nil {
				broken = true
				return writeResult{}
			}
			return g.run(ctx, fn, sqlTx)
		})
		if ended {
			r.done <- res
			continue
		}
		if broken {
			_ = sqlTx.Rollback()
			g.oneByOne(append(ok, group[i:]...))
			return
		}
		if res.err == nil && res.panicked == nil {
			if _, err := sqlTx.ExecContext(bg, "RELEASE keygate_write"); err != nil {
				_ = sqlTx.Rollback()
				g.oneByOne(append(ok, group[i:]...))
				return
			}
			ok = append(ok, r)
			continue
		}
		_, err1 := sqlTx.ExecContext(bg, "ROLLBACK TO keygate_write")
		_, err2 := sqlTx.ExecContext(bg, "RELEASE keygate_write")
		if err1 != nil || err2 != nil {
			// The failure took the transaction with it (SQLite rolls back
			// on some errors): this write has its answer, the others
			// start over alone.
			_ = sqlTx.Rollback()
			r.done <- res
			g.oneByOne(append(ok, group[i+1:]...))
			return
		}
		r.done <- res
	}
	if err := sqlTx.Commit(); err != nil {
		_ = sqlTx.Rollback()
		g.oneByOne(ok)
		return
	}
	g.db.ckpt.wrote()
	for _, r := range ok {
		r.done <- writeResult{}
	}
}

// run calls fn inside the group's transaction; a write whose context
// ended while it ran is rolled back as inTx would.
func (g *groupCommit) run(ctx context.Context, fn func(relstore.Tx) error, sqlTx *sql.Tx) (res writeResult) {
	defer func() {
		if p := recover(); p != nil {
			res = writeResult{panicked: p}
		}
	}()
	if err := fn(tx{q: g.db.writes.WithTx(sqlTx)}); err != nil {
		return writeResult{err: err}
	}
	if err := ctx.Err(); err != nil {
		return writeResult{err: fmt.Errorf("commit: %w", err)}
	}
	return writeResult{}
}

func (g *groupCommit) oneByOne(rs []*writeReq) {
	for _, r := range rs {
		g.alone(r)
	}
}
