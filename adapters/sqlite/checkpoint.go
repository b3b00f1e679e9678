package sqlite

import (
	"context"
	"database/sql"
	"sync"
	"time"

	"go.uber.org/zap"
)

// checkpointPause is the least time between two checkpoints: the log's
// pages written meanwhile are copied together.
const checkpointPause = 200 * time.Millisecond

// checkpointer copies the write-ahead log's committed pages into the
// database file (a PASSIVE checkpoint: it waits for no reader and no
// writer) on a reader connection, after writes, instead of the writer
// doing it inside the commit that crosses SQLite's 1,000-page threshold.
// The writer's commits, which every turn queues behind, stay short; the
// copying uses the other core.
type checkpointer struct {
	pool *sql.DB
	log  *zap.Logger
	kick chan struct{}
	quit chan struct{}
	done chan struct{}
	once sync.Once
}

func newCheckpointer(pool *sql.DB, log *zap.Logger) *checkpointer {
	c := &checkpointer{pool: pool, log: log, kick: make(chan struct{}, 1), quit: make(chan struct{}), done: make(chan struct{})}
	go c.loop()
	return c
}

// wrote tells the checkpointer that a write committed.
func (c *checkpointer) wrote() {
	select {
	case c.kick <- struct{}{}:
	default:
	}
}

func (c *checkpointer) loop() {
	defer close(c.done)
	for {
		select {
		case <-c.kick:
		case <-c.quit:
			return
		}
		ctx, cancel := context.WithTimeout(context.Background(), time.Minute)
		if _, err := c.pool.ExecContext(ctx, "PRAGMA wal_checkpoint(PASSIVE)"); err != nil {
			c.log.Warn("checkpoint the write-ahead log", zap.Error(err))
		}
		cancel()
		select {
		case <-time.After(checkpointPause):
		case <-c.quit:
			return
		}
	}
}

func (c *checkpointer) close() {
	c.once.Do(func() { close(c.quit) })
	<-c.done
}
