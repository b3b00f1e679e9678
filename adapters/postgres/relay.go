package postgres

import (
	"cmp"
	"context"
	"crypto/rand"
	"encoding/binary"
	"encoding/hex"
	"errors"
	"fmt"
	"slices"
	"strings"
	"sync"
	"sync/atomic"
	"time"

	"github.com/jackc/pgx/v5"
	"go.uber.org/zap"

	"keygate/gen/sqlc/pgdb"
	"keygate/ports"
)

// relayChannel is the NOTIFY channel; its payload is the key that has
// waiting appends, watchPrefix and a key a follower started reading, or
// outputPrefix and a key whose output changed.
const relayChannel = "keygate_relay"

// watchPrefix marks a watch notification; no key starts with it (keys
// start with a digit or "-").
const watchPrefix = "watch "

// outputPrefix marks an output notification: frames published for the
// key, or its lease released (PublishRelayOutput, ReleaseRelayLease).
const outputPrefix = "output "

// minWatch is the least a follower's read counts as a watch of its key,
// whatever the lease period: a follower woken by notifications reads
// without one only every second or so (bidi.FollowPoll).
const minWatch = 3 * time.Second

// RelayOptions tune a [Relay]; zero values take the defaults.
type RelayOptions struct {
	// Sweep is how often held keys are drained without a notification
	// (a safety net for a dropped listener connection) and stale payloads,
	// output and leases dropped, whether notifications keep coming or not;
	// default 5s.
	Sweep time.Duration
	// Retain is how long an unclaimed payload is kept, and the output of
	// an ended lease; default 2 minutes. A payload waits for the RunSSE of
	// its run to take its key; a run whose stream has not come back within
	// its orphan grace and route wait (30 s each by default) has ended,
	// and the payload could only be dropped as late by then.
	Retain time.Duration
	// LeaseTTL is how long a lease lasts without renewal; the owner renews
	// every third of it. A replica whose database session ended (killed,
	// crashed) loses its keys at once, through its advisory lock; one that
	// hangs with its session open loses them after at most this long.
	// Default DefaultLeaseTTL.
	LeaseTTL time.Duration
	// MaxOwnerBytes bounds the payloads waiting for one owner; default
	// 64 MiB, the held bytes a registry allows one caller.
	MaxOwnerBytes int64
	// MaxBytes bounds the payloads waiting for everyone; default 256 MiB.
	// Forwards racing each other may each pass it by one payload.
	MaxBytes int64
}

// DefaultLeaseTTL is RelayOptions.LeaseTTL's default: a hung owner's runs
// move after at most this long, and an owner renews every 2 s, which a
// loaded replica still manages.
const DefaultLeaseTTL = 6 * time.Second

// minPayloadCost is the least a payload counts against the bounds, so
// that a flood of tiny rows is bounded in number as well.
const minPayloadCost = 1 << 10

// followPage bounds the frames one Follow returns.
const followPage = 256

// Relay implements ports.AppendRelay on one database shared by every
// replica. A lease is a row of relay_leases (fencing token from one
// sequence, expiry renewed by a loop here); Forward inserts the payload
// into relay_inbox and NOTIFYs its key in one statement; each replica
// LISTENs on one dedicated connection and, for a key it holds, takes the
// waiting rows (DELETE … RETURNING, so each row goes to exactly one owner,
// and only while its lease is current) in sequence order. Payloads live in
// a table rather than in the NOTIFY payload because appends can exceed
// NOTIFY's 8000-byte limit and must survive a moment without an owner.
type Relay struct {
	db     *DB
	opts   RelayOptions
	log    *zap.Logger
	holder string // this replica, in the lease rows (diagnostics)

	// lock is the session advisory lock the listening connection holds
	// while this replica lives (0 while it holds none): the lease rows
	// name it, so that another replica can tell at once that the session,
	// and so this replica, is gone.
	lock atomic.Int64

	mu     sync.Mutex
	leases map[string]*lease
	// readers are the wake channels of the keys whose output is followed
	// here (Changes).
	readers map[string]map[chan struct{}]struct{}

	stop context.CancelFunc
	done chan struct{}
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
	if opts.LeaseTTL <= 0 {
		opts.LeaseTTL = DefaultLeaseTTL
	}
	if opts.MaxOwnerBytes <= 0 {
		opts.MaxOwnerBytes = 64 << 20
	}
	if opts.MaxBytes <= 0 {
		opts.MaxBytes = 256 << 20
	}
	var id [8]byte
	_, _ = rand.Read(id[:])
	r := &Relay{db: db, opts: opts, log: logger.Named("relay"), holder: hex.EncodeToString(id[:]),
		leases: map[string]*lease{}, readers: map[string]map[chan struct{}]struct{}{}, done: make(chan struct{})}
	conn, err := r.listen(ctx)
	if err != nil {
		return nil, err
	}
	loopCtx, stop := context.WithCancel(context.WithoutCancel(ctx))
	r.stop = stop
	go r.loop(loopCtx, conn)
	return r, nil
}

// listen takes a connection out of the pool for good, LISTENs on it and
// takes a fresh session advisory lock on it, which the leases taken or
// renewed from then on name.
func (r *Relay) listen(ctx context.Context) (*pgx.Conn, error) {
	pc, err := r.db.pool.Acquire(ctx)
	if err != nil {
		return nil, fmt.Errorf("relay listener: %w", interpretError(ctx, err))
	}
	conn := pc.Hijack()
	fail := func(err error) (*pgx.Conn, error) {
		_ = conn.Close(context.WithoutCancel(ctx))
		return nil, fmt.Errorf("relay listener: %w", interpretError(ctx, err))
	}
	if _, err := conn.Exec(ctx, "LISTEN "+relayChannel); err != nil {
		return fail(err)
	}
	// A random key, drawn again on the rare collision: a lock another
	// session holds would make this replica look alive after it died.
	for range 8 {
		var b [8]byte
		_, _ = rand.Read(b[:])
		key := int64(binary.BigEndian.Uint64(b[:]) >> 1)
		if key == 0 {
			continue
		}
		var ok bool
		if err := conn.QueryRow(ctx, "SELECT pg_try_advisory_lock($1)", key).Scan(&ok); err != nil {
			return fail(err)
		}
		if ok {
			r.lock.Store(key)
			return conn, nil
		}
	}
	return fail(errors.New("no free advisory lock key"))
}

// Close stops listening and renewing: the leases held here are not
// released, so they expire as a dead replica's would, unless their
// holders released them first.
func (r *Relay) Close() {
	r.stop()
	<-r.done
}

// lease implements ports.RunLease.
type lease struct {
	r       *Relay
	key     string
	token   int64
	deliver func([]byte)
	watched atomic.Bool
	lost    chan struct{}
	once    sync.Once

	mu        sync.Mutex // one drain or publish at a time; held by Release
	released  bool
	ended     bool  // the key's last stream had ended when this lease began
	settled   bool  // Settle ran: taken payloads leave the mailbox
	tookOver  bool  // the previous lease of the key was never released, or ended its stream
	published int64 // frames published so far
}

func (l *lease) Token() int64            { return l.token }
func (l *lease) TookOver() bool          { return l.tookOver }
func (l *lease) Watched() bool           { return l.watched.Load() }
func (l *lease) Lost() <-chan struct{}   { return l.lost }
func (l *lease) markLost()               { l.once.Do(func() { close(l.lost) }) }
func (l *lease) params() (string, int64) { return l.key, l.token }
func (l *lease) current() bool           { return !l.released && !l.isLost() }
func (l *lease) isLost() bool {
	select {
	case <-l.lost:
		return true
	default:
		return false
	}
}

// Acquire implements ports.AppendRelay.
func (r *Relay) Acquire(ctx context.Context, key string, deliver func([]byte)) (ports.RunLease, error) {
	r.mu.Lock()
	if _, ok := r.leases[key]; ok {
		r.mu.Unlock()
		return nil, fmt.Errorf("acquire run key %s: %w", key, ports.ErrConflict)
	}
	// Reserved while the row is written, so a second Acquire here fails.
	r.leases[key] = nil
	r.mu.Unlock()
	row, err := pgdb.New(r.db.pool).AcquireRelayLease(ctx, pgdb.AcquireRelayLeaseParams{
		Key: key, Holder: r.holder, Ttl: r.opts.LeaseTTL.Seconds(), HolderLock: r.lock.Load()})
	if err != nil {
		r.mu.Lock()
		delete(r.leases, key)
		r.mu.Unlock()
		if errors.Is(err, pgx.ErrNoRows) {
			return nil, fmt.Errorf("acquire run key %s: %w", key, ports.ErrLeaseHeld)
		}
		return nil, fmt.Errorf("acquire run key %s: %w", key, interpretError(ctx, err))
	}
	l := &lease{r: r, key: key, token: row.Token, deliver: deliver, lost: make(chan struct{}), ended: row.Ended, tookOver: row.TakenOver || row.Ended}
	r.mu.Lock()
	r.leases[key] = l
	r.mu.Unlock()
	if err := r.drain(ctx, l); err != nil {
		l.Release(false)
		return nil, fmt.Errorf("acquire run key %s: %w", key, err)
	}
	return l, nil
}

// Opened implements ports.RunLease.
func (l *lease) Opened(ctx context.Context) error {
	l.mu.Lock()
	defer l.mu.Unlock()
	if !l.ended {
		return nil
	}
	key, token := l.params()
	if err := pgdb.New(l.r.db.pool).OpenRelayLease(ctx, pgdb.OpenRelayLeaseParams{Key: key, Token: token}); err != nil {
		return fmt.Errorf("open run key %s: %w", key, interpretError(ctx, err))
	}
	l.ended = false
	return nil
}

// Keep implements ports.RunLease.
func (l *lease) Keep(ctx context.Context, owner string, payload []byte, opens bool) error {
	l.mu.Lock()
	defer l.mu.Unlock()
	if !l.current() || l.settled {
		return nil
	}
	key, token := l.params()
	_, err := pgdb.New(l.r.db.pool).KeepRelayPayload(ctx, pgdb.KeepRelayPayloadParams{
		Key: key, Owner: owner, Size: max(int64(len(payload)), minPayloadCost), Payload: payload, Opens: opens, Token: token})
	if err != nil {
		return fmt.Errorf("keep payload of run key %s: %w", key, interpretError(ctx, err))
	}
	return nil
}

// Settle implements ports.RunLease.
func (l *lease) Settle(ctx context.Context) error {
	l.mu.Lock()
	defer l.mu.Unlock()
	if !l.current() {
		return nil // a released lease dropped them; a lost one leaves them to the next
	}
	key, token := l.params()
	if err := pgdb.New(l.r.db.pool).SettleRelayPayloads(ctx, pgdb.SettleRelayPayloadsParams{Key: key, Token: token}); err != nil {
		return fmt.Errorf("settle run key %s: %w", key, interpretError(ctx, err))
	}
	l.settled = true
	return nil
}

// Release implements ports.RunLease.
func (l *lease) Release(ended bool) {
	l.mu.Lock()
	if l.released {
		l.mu.Unlock()
		return
	}
	l.released = true
	l.mu.Unlock()
	r := l.r
	r.mu.Lock()
	if r.leases[l.key] == l {
		delete(r.leases, l.key)
	}
	r.mu.Unlock()
	if l.isLost() {
		return
	}
	ctx, cancel := context.WithTimeout(context.Background(), r.opts.LeaseTTL)
	defer cancel()
	if err := pgdb.New(r.db.pool).ReleaseRelayLease(ctx, pgdb.ReleaseRelayLeaseParams{Key: l.key, Token: l.token, Ended: ended}); err != nil {
		r.log.Warn("run key release failed; the lease expires on its own", zap.String("key", l.key), zap.Error(err))
	}
}

// Publish implements ports.RunLease.
func (l *lease) Publish(ctx context.Context, frames [][]byte, end []byte) error {
	l.mu.Lock()
	defer l.mu.Unlock()
	if !l.current() {
		return fmt.Errorf("publish output of run key %s: %w", l.key, ports.ErrNotOwner)
	}
	all := frames
	if end != nil {
		all = append(slices.Clip(frames), end)
	}
	if len(all) == 0 {
		return nil
	}
	seqs, ends := make([]int64, len(all)), make([]bool, len(all))
	for i := range all {
		seqs[i] = l.published + int64(i) + 1
	}
	ends[len(all)-1] = end != nil
	row, err := pgdb.New(l.r.db.pool).PublishRelayOutput(ctx, pgdb.PublishRelayOutputParams{Key: l.key, Token: l.token, Seqs: seqs, Frames: all, Ends: ends})
	if err != nil {
		return fmt.Errorf("publish output of run key %s: %w", l.key, interpretError(ctx, err))
	}
	if row.Published == 0 {
		l.markLost()
		return fmt.Errorf("publish output of run key %s with token %d: %w", l.key, l.token, ports.ErrNotOwner)
	}
	l.published += int64(len(all))
	return nil
}

// Forward implements ports.AppendRelay in one statement.
func (r *Relay) Forward(ctx context.Context, owner, key string, payload []byte, opens bool) error {
	size := max(int64(len(payload)), minPayloadCost)
	row, err := pgdb.New(r.db.pool).ForwardRelayPayload(ctx, pgdb.ForwardRelayPayloadParams{
		Opens: opens, Key: key, Owner: owner, Size: size, Payload: payload, MaxOwner: r.opts.MaxOwnerBytes, MaxAll: r.opts.MaxBytes,
	})
	switch {
	case err != nil:
		err = interpretError(ctx, err)
	case !row.Live:
		err = ports.ErrLateAppend
	case row.Stored > 0:
		return nil
	case row.Mine+size > r.opts.MaxOwnerBytes:
		err = fmt.Errorf("%w: %d bytes of this user's appends already wait for their stream and this one adds %d (limit %d per user)",
			ports.ErrRelayFull, row.Mine, size, r.opts.MaxOwnerBytes)
	default:
		err = fmt.Errorf("%w: %d bytes of appends from all users already wait for their streams (limit %d)",
			ports.ErrRelayFull, row.Total, r.opts.MaxBytes)
	}
	return fmt.Errorf("forward to relay key %s: %w", key, err)
}

// Follow implements ports.AppendRelay.
func (r *Relay) Follow(ctx context.Context, key string, after int64) (ports.OutputPage, error) {
	q := pgdb.New(r.db.pool)
	page := ports.OutputPage{Last: after}
	st, err := q.WatchRelayLease(ctx, pgdb.WatchRelayLeaseParams{Key: key, Ttl: max(r.opts.LeaseTTL, minWatch).Seconds()})
	switch {
	case errors.Is(err, pgx.ErrNoRows):
		return page, nil
	case err != nil:
		return page, fmt.Errorf("follow run key %s: %w", key, interpretError(ctx, err))
	}
	page.Held, page.Token = st.Held, st.Token
	if after == 0 && st.Held {
		// The holder learns of a follower when it renews; this tells it
		// now, so the first frames do not wait for the renewal.
		if err := q.NotifyRelayWatch(ctx, key); err != nil {
			return page, fmt.Errorf("follow run key %s: %w", key, interpretError(ctx, err))
		}
	}
	rows, err := q.RelayOutputAfter(ctx, pgdb.RelayOutputAfterParams{Key: key, Token: st.Token, After: after, MaxFrames: followPage})
	if err != nil {
		return page, fmt.Errorf("follow run key %s: %w", key, interpretError(ctx, err))
	}
	for _, row := range rows {
		page.Last = row.Seq
		if row.IsEnd {
			page.End = row.Frame
			break
		}
		page.Frames = append(page.Frames, row.Frame)
	}
	return page, nil
}

// Changes implements ports.AppendRelay: the listener wakes the channel on
// the key's output notifications, and wakes every channel when it
// reconnects, since notifications sent meanwhile were lost.
func (r *Relay) Changes(key string) (<-chan struct{}, func()) {
	ch := make(chan struct{}, 1)
	r.mu.Lock()
	set := r.readers[key]
	if set == nil {
		set = map[chan struct{}]struct{}{}
		r.readers[key] = set
	}
	set[ch] = struct{}{}
	r.mu.Unlock()
	var once sync.Once
	return ch, func() {
		once.Do(func() {
			r.mu.Lock()
			defer r.mu.Unlock()
			delete(r.readers[key], ch)
			if len(r.readers[key]) == 0 {
				delete(r.readers, key)
			}
		})
	}
}

// wake wakes the readers of key's output; every reader when all is set.
func (r *Relay) wake(key string, all bool) {
	r.mu.Lock()
	defer r.mu.Unlock()
	if !all {
		signal(r.readers[key])
		return
	}
	for _, set := range r.readers {
		signal(set)
	}
}

// signal gives each channel of set a value unless it has one waiting.
func signal(set map[chan struct{}]struct{}) {
	for ch := range set {
		select {
		case ch <- struct{}{}:
		default:
		}
	}
}

// drain takes l's waiting payloads and delivers them in order. The take
// is not cancelled with ctx (an Acquire's caller that left, a closing
// relay): the server may have deleted the rows when the cancel reaches it,
// and rows deleted but never delivered are appends lost.
func (r *Relay) drain(ctx context.Context, l *lease) error {
	l.mu.Lock()
	defer l.mu.Unlock()
	if !l.current() {
		return nil
	}
	ctx, cancel := context.WithTimeout(context.WithoutCancel(ctx), r.opts.LeaseTTL)
	defer cancel()
	rows, err := pgdb.New(r.db.pool).TakeRelayPayloads(ctx, pgdb.TakeRelayPayloadsParams{Key: l.key, Token: l.token, Keep: !l.settled})
	if err != nil {
		return interpretError(ctx, err)
	}
	slices.SortFunc(rows, func(a, b pgdb.TakeRelayPayloadsRow) int { return cmp.Compare(a.Seq, b.Seq) })
	for _, row := range rows {
		l.deliver(row.Payload)
	}
	return nil
}

func (r *Relay) held() []*lease {
	r.mu.Lock()
	defer r.mu.Unlock()
	out := make([]*lease, 0, len(r.leases))
	for _, l := range r.leases {
		if l != nil {
			out = append(out, l)
		}
	}
	return out
}

// watched marks key's lease watched, if held here, until the next renewal
// says otherwise.
func (r *Relay) watched(key string) {
	r.mu.Lock()
	l := r.leases[key]
	r.mu.Unlock()
	if l != nil {
		l.watched.Store(true)
	}
}

func (r *Relay) drainKey(ctx context.Context, key string) {
	r.mu.Lock()
	l := r.leases[key]
	r.mu.Unlock()
	if l == nil {
		return
	}
	if err := r.drain(ctx, l); err != nil && ctx.Err() == nil {
		r.log.Warn("relay drain failed; the next sweep retries", zap.String("key", key), zap.Error(err))
	}
}

// loop waits for notifications, renews the leases every third of their
// TTL and sweeps every Sweep interval, busy or quiet. On a broken
// connection it reconnects.
func (r *Relay) loop(ctx context.Context, conn *pgx.Conn) {
	defer close(r.done)
	defer func() { _ = conn.Close(context.Background()) }()
	nextSweep, nextRenew := time.Now().Add(r.opts.Sweep), time.Now().Add(r.opts.LeaseTTL/3)
	for ctx.Err() == nil {
		if now := time.Now(); !now.Before(nextRenew) {
			r.renew(ctx)
			nextRenew = now.Add(r.opts.LeaseTTL / 3)
		}
		if now := time.Now(); !now.Before(nextSweep) {
			r.sweep(ctx)
			nextSweep = now.Add(r.opts.Sweep)
		}
		wait, cancel := context.WithDeadline(ctx, minTime(nextSweep, nextRenew))
		n, err := conn.WaitForNotification(wait)
		cancel()
		switch {
		case err == nil && strings.HasPrefix(n.Payload, watchPrefix):
			r.watched(strings.TrimPrefix(n.Payload, watchPrefix))
		case err == nil && strings.HasPrefix(n.Payload, outputPrefix):
			r.wake(strings.TrimPrefix(n.Payload, outputPrefix), false)
		case err == nil:
			r.drainKey(ctx, n.Payload)
		case ctx.Err() != nil:
			return
		case errors.Is(err, context.DeadlineExceeded):
			// A renewal or the sweep is due; the top of the loop runs it.
		default:
			r.log.Warn("relay listener lost; reconnecting", zap.Error(err))
			_ = conn.Close(context.WithoutCancel(ctx))
			// The lock went with the session: until the next renewal names
			// the new one, other replicas may take the keys held here
			// (their renewals and output are fenced by token).
			r.lock.Store(0)
			conn = r.reconnect(ctx)
			if conn != nil {
				r.renew(ctx)
			}
			if conn == nil {
				return
			}
			// Output published while the listener was down woke no one.
			r.wake("", true)
			r.sweep(ctx)
		}
	}
}

func minTime(a, b time.Time) time.Time {
	if a.Before(b) {
		return a
	}
	return b
}

func (r *Relay) reconnect(ctx context.Context) *pgx.Conn {
	for {
		conn, err := r.listen(ctx)
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

// renew extends every lease held here in one statement; a lease the
// statement does not return is stale and marked lost. A failed renewal is
// retried at the next one: a lease that expires meanwhile is lost then.
func (r *Relay) renew(ctx context.Context) {
	held := r.held()
	if len(held) == 0 {
		return
	}
	keys, tokens := make([]string, len(held)), make([]int64, len(held))
	for i, l := range held {
		keys[i], tokens[i] = l.params()
	}
	rows, err := pgdb.New(r.db.pool).RenewRelayLeases(ctx, pgdb.RenewRelayLeasesParams{
		Keys: keys, Tokens: tokens, Ttl: r.opts.LeaseTTL.Seconds(), HolderLock: r.lock.Load()})
	if err != nil {
		if ctx.Err() == nil {
			r.log.Warn("run key renewal failed; retrying", zap.Int("keys", len(held)), zap.Error(err))
		}
		return
	}
	renewed := make(map[string]bool, len(rows))
	for _, row := range rows {
		renewed[row.Key] = row.Watched
	}
	for _, l := range held {
		watched, ok := renewed[l.key]
		l.watched.Store(watched)
		if !ok {
			l.mu.Lock()
			released := l.released
			l.mu.Unlock()
			if !released {
				r.log.Warn("run key lost: another replica holds it, or its lease expired", zap.String("key", l.key), zap.Int64("token", l.token))
				l.markLost()
			}
		}
	}
}

func (r *Relay) sweep(ctx context.Context) {
	for _, l := range r.held() {
		r.drainKey(ctx, l.key)
	}
	q := pgdb.New(r.db.pool)
	cutoff := time.Now().Add(-r.opts.Retain).UTC()
	if _, err := q.DropStaleRelayPayloads(ctx, cutoff); err != nil && ctx.Err() == nil {
		r.log.Warn("relay cleanup failed", zap.Error(err))
	}
	for _, drop := range []func(context.Context) error{
		q.DropEmptyRelayUsage,
		func(ctx context.Context) error { return q.DropRelayOutput(ctx, cutoff) },
		func(ctx context.Context) error { return q.DropIdleRelayLeases(ctx, cutoff) },
	} {
		if err := drop(ctx); err != nil && ctx.Err() == nil {
			r.log.Warn("relay cleanup failed", zap.Error(err))
		}
	}
}
