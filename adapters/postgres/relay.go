package postgres

import (
	"cmp"
	"context"
	"errors"
	"fmt"
	"slices"
	"sync"
	"time"

	"github.com/jackc/pgx/v5"
	"go.uber.org/zap"

	"keygate/adapters/relstore"
	"keygate/gen/sqlc/pgdb"
	"keygate/ports"
)

// relayChannel is the NOTIFY channel; its payload is the key that has
// waiting appends.
const relayChannel = "keygate_relay"

// RelayOptions tune a [Relay]; zero values take the defaults.
type RelayOptions struct {
	// Sweep is how often claimed keys are drained without a notification
	// (a safety net for a dropped listener connection); default 5s.
	Sweep time.Duration
	// Retain is how long an unclaimed payload is kept; default 10 minutes.
	Retain time.Duration
}

// Relay implements ports.AppendRelay on one database shared by every
// replica: Forward inserts the payload into relay_inbox and NOTIFYs its key
// in the same transaction; each replica LISTENs on one dedicated
// connection and, for a key it claims, takes the waiting rows (DELETE …
// RETURNING, so each row goes to exactly one claimant) in sequence order.
// Payloads live in a table rather than in the NOTIFY payload because
// appends can exceed NOTIFY's 8000-byte limit and must survive a moment
// without a claimant.
type Relay struct {
	db   *DB
	opts RelayOptions
	log  *zap.Logger

	mu     sync.Mutex
	claims map[string]*relayClaim

	stop context.CancelFunc
	done chan struct{}
}

type relayClaim struct {
	deliver  func([]byte)
	mu       sync.Mutex // one drain at a time; held by release
	released bool
}

var _ ports.AppendRelay = (*Relay)(nil)

// NewRelay starts listening. Close it before closing db.
func NewRelay(ctx context.Context, db *DB, opts RelayOptions, logger *zap.Logger) (*Relay, error) {
	if opts.Sweep <= 0 {
		opts.Sweep = 5 * time.Second
	}
	if opts.Retain <= 0 {
		opts.Retain = 10 * time.Minute
	}
	conn, err := db.listen(ctx)
	if err != nil {
		return nil, err
	}
	loopCtx, stop := context.WithCancel(context.WithoutCancel(ctx))
	r := &Relay{db: db, opts: opts, log: logger.Named("relay"), claims: map[string]*relayClaim{}, stop: stop, done: make(chan struct{})}
	go r.loop(loopCtx, conn)
	return r, nil
}

// listen takes a connection out of the pool for good and LISTENs on it.
func (db *DB) listen(ctx context.Context) (*pgx.Conn, error) {
	pc, err := db.pool.Acquire(ctx)
	if err != nil {
		return nil, fmt.Errorf("relay listener: %w", interpretError(ctx, err))
	}
	conn := pc.Hijack()
	if _, err := conn.Exec(ctx, "LISTEN "+relayChannel); err != nil {
		_ = conn.Close(context.WithoutCancel(ctx))
		return nil, fmt.Errorf("relay listener: %w", interpretError(ctx, err))
	}
	return conn, nil
}

// Close stops listening; claims end with it.
func (r *Relay) Close() {
	r.stop()
	<-r.done
}

// Claim implements ports.AppendRelay.
func (r *Relay) Claim(ctx context.Context, key string, deliver func([]byte)) (func(), error) {
	c := &relayClaim{deliver: deliver}
	r.mu.Lock()
	if _, ok := r.claims[key]; ok {
		r.mu.Unlock()
		return nil, fmt.Errorf("claim relay key %s: %w", key, ports.ErrConflict)
	}
	r.claims[key] = c
	r.mu.Unlock()
	release := func() {
		r.mu.Lock()
		if r.claims[key] == c {
			delete(r.claims, key)
		}
		r.mu.Unlock()
		c.mu.Lock()
		c.released = true
		c.mu.Unlock()
	}
	if err := r.drain(ctx, key, c); err != nil {
		release()
		return nil, fmt.Errorf("claim relay key %s: %w", key, err)
	}
	return release, nil
}

// Forward implements ports.AppendRelay.
func (r *Relay) Forward(ctx context.Context, key string, payload []byte) error {
	err := r.db.Write(ctx, func(t relstore.Tx) error {
		q := t.(tx).q
		if err := q.InsertRelayPayload(ctx, pgdb.InsertRelayPayloadParams{Key: key, Payload: payload, CreatedAt: time.Now().UTC()}); err != nil {
			return interpretError(ctx, err)
		}
		return interpretError(ctx, q.NotifyRelay(ctx, key))
	})
	if err != nil {
		return fmt.Errorf("forward to relay key %s: %w", key, err)
	}
	return nil
}

// drain takes key's waiting payloads and delivers them in order.
func (r *Relay) drain(ctx context.Context, key string, c *relayClaim) error {
	c.mu.Lock()
	defer c.mu.Unlock()
	if c.released {
		return nil
	}
	rows, err := pgdb.New(r.db.pool).TakeRelayPayloads(ctx, key)
	if err != nil {
		return interpretError(ctx, err)
	}
	slices.SortFunc(rows, func(a, b pgdb.TakeRelayPayloadsRow) int { return cmp.Compare(a.Seq, b.Seq) })
	for _, row := range rows {
		c.deliver(row.Payload)
	}
	return nil
}

func (r *Relay) drainKey(ctx context.Context, key string) {
	r.mu.Lock()
	c := r.claims[key]
	r.mu.Unlock()
	if c == nil {
		return
	}
	if err := r.drain(ctx, key, c); err != nil && ctx.Err() == nil {
		r.log.Warn("relay drain failed; the next sweep retries", zap.String("key", key), zap.Error(err))
	}
}

// loop waits for notifications; on a quiet interval it sweeps every claim
// and drops stale payloads; on a broken connection it reconnects.
func (r *Relay) loop(ctx context.Context, conn *pgx.Conn) {
	defer close(r.done)
	defer func() { _ = conn.Close(context.Background()) }()
	for ctx.Err() == nil {
		wait, cancel := context.WithTimeout(ctx, r.opts.Sweep)
		n, err := conn.WaitForNotification(wait)
		cancel()
		switch {
		case err == nil:
			r.drainKey(ctx, n.Payload)
		case ctx.Err() != nil:
			return
		case errors.Is(err, context.DeadlineExceeded):
			r.sweep(ctx)
		default:
			r.log.Warn("relay listener lost; reconnecting", zap.Error(err))
			_ = conn.Close(context.Background())
			conn = r.reconnect(ctx)
			if conn == nil {
				return
			}
			r.sweep(ctx)
		}
	}
}

func (r *Relay) reconnect(ctx context.Context) *pgx.Conn {
	for {
		conn, err := r.db.listen(ctx)
		if err == nil {
			return conn
		}
		select {
		case <-ctx.Done():
			return nil
		case <-time.After(time.Second):
		}
	}
}

func (r *Relay) sweep(ctx context.Context) {
	r.mu.Lock()
	keys := make([]string, 0, len(r.claims))
	for k := range r.claims {
		keys = append(keys, k)
	}
	r.mu.Unlock()
	for _, k := range keys {
		r.drainKey(ctx, k)
	}
	if _, err := pgdb.New(r.db.pool).DropStaleRelayPayloads(ctx, time.Now().Add(-r.opts.Retain).UTC()); err != nil && ctx.Err() == nil {
		r.log.Warn("relay cleanup failed", zap.Error(err))
	}
}
