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
	// (a safety net for a dropped listener connection) and stale payloads
	// dropped, whether notifications keep coming or not; default 5s.
	Sweep time.Duration
	// Retain is how long an unclaimed payload is kept; default 2 minutes.
	// A payload waits for the RunSSE of its run to claim its key; a run
	// whose stream has not come back within its orphan grace and route
	// wait (30 s each by default) has ended, and the payload could only be
	// dropped as late by then.
	Retain time.Duration
	// MaxOwnerBytes bounds the payloads waiting for one owner; default
	// 64 MiB, the held bytes a registry allows one caller.
	MaxOwnerBytes int64
	// MaxBytes bounds the payloads waiting for everyone; default 256 MiB.
	// Forwards racing each other may each pass it by one payload.
	MaxBytes int64
}

// minPayloadCost is the least a payload counts against the bounds, so
// that a flood of tiny rows is bounded in number as well.
const minPayloadCost = 1 << 10

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
		opts.Retain = 2 * time.Minute
	}
	if opts.MaxOwnerBytes <= 0 {
		opts.MaxOwnerBytes = 64 << 20
	}
	if opts.MaxBytes <= 0 {
		opts.MaxBytes = 256 << 20
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

// Forward implements ports.AppendRelay. The owner's total is reserved
// first (its row stays locked to the end of the transaction), then checked
// with everyone's; over either bound the transaction rolls back.
func (r *Relay) Forward(ctx context.Context, owner, key string, payload []byte) error {
	size := max(int64(len(payload)), minPayloadCost)
	err := r.db.Write(ctx, func(t relstore.Tx) error {
		q := t.(tx).q
		mine, err := q.ReserveRelayBytes(ctx, pgdb.ReserveRelayBytesParams{Owner: owner, Bytes: size})
		if err != nil {
			return interpretError(ctx, err)
		}
		if mine > r.opts.MaxOwnerBytes {
			return fmt.Errorf("%w: %d bytes of this user's appends already wait for their stream and this one adds %d (limit %d per user)",
				ports.ErrRelayFull, mine-size, size, r.opts.MaxOwnerBytes)
		}
		all, err := q.RelayBytes(ctx)
		if err != nil {
			return interpretError(ctx, err)
		}
		if all > r.opts.MaxBytes {
			return fmt.Errorf("%w: %d bytes of appends from all users already wait for their streams (limit %d)",
				ports.ErrRelayFull, all-size, r.opts.MaxBytes)
		}
		if err := q.InsertRelayPayload(ctx, pgdb.InsertRelayPayloadParams{Key: key, Owner: owner, Size: size, Payload: payload, CreatedAt: time.Now().UTC()}); err != nil {
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

// loop waits for notifications and sweeps every Sweep interval, busy or
// quiet: it drains every claim and drops stale payloads. On a broken
// connection it reconnects.
func (r *Relay) loop(ctx context.Context, conn *pgx.Conn) {
	defer close(r.done)
	defer func() { _ = conn.Close(context.Background()) }()
	next := time.Now().Add(r.opts.Sweep)
	for ctx.Err() == nil {
		if time.Now().After(next) {
			r.sweep(ctx)
			next = time.Now().Add(r.opts.Sweep)
		}
		wait, cancel := context.WithDeadline(ctx, next)
		n, err := conn.WaitForNotification(wait)
		cancel()
		switch {
		case err == nil:
			r.drainKey(ctx, n.Payload)
		case ctx.Err() != nil:
			return
		case errors.Is(err, context.DeadlineExceeded):
			// The sweep is due; the top of the loop runs it.
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
	q := pgdb.New(r.db.pool)
	if _, err := q.DropStaleRelayPayloads(ctx, time.Now().Add(-r.opts.Retain).UTC()); err != nil && ctx.Err() == nil {
		r.log.Warn("relay cleanup failed", zap.Error(err))
	}
	if err := q.DropEmptyRelayUsage(ctx); err != nil && ctx.Err() == nil {
		r.log.Warn("relay cleanup failed", zap.Error(err))
	}
}
