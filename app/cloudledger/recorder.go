package cloudledger

import (
	"context"
	"sync"
	"time"

	"go.uber.org/zap"

	"keygate/domain/cursorcloud"
	"keygate/ports"
)

// Defaults of Options.
const (
	DefaultFlushInterval = 5 * time.Second
	DefaultMaxPending    = 10_000
)

// Options configure a Recorder.
type Options struct {
	Store ports.CloudUsageStore
	// Now is the clock (time.Now when nil); days are UTC.
	Now func() time.Time
	// FlushInterval is how often Run flushes (DefaultFlushInterval when
	// <= 0); MaxPending bounds the keys waiting (DefaultMaxPending).
	FlushInterval time.Duration
	MaxPending    int
	// Observe, when set, sees every counted request at once (the
	// Prometheus counters).
	Observe func(cursorcloud.Usage)
	Logger  *zap.Logger
}

type key struct {
	day, user string
	route     cursorcloud.Route
	decision  cursorcloud.Decision
}

// overflowRoute holds the counts of keys over MaxPending.
var overflowRoute = cursorcloud.Route{Method: "(overflow)"}

// Recorder aggregates counted requests and flushes them to the store. It
// is safe for concurrent use.
type Recorder struct {
	o Options

	mu      sync.Mutex
	pending map[key]*cursorcloud.DayUsage
}

// New builds a Recorder; start Run to flush.
func New(o Options) *Recorder {
	if o.Now == nil {
		o.Now = time.Now
	}
	if o.FlushInterval <= 0 {
		o.FlushInterval = DefaultFlushInterval
	}
	if o.MaxPending <= 0 {
		o.MaxPending = DefaultMaxPending
	}
	if o.Logger == nil {
		o.Logger = zap.NewNop()
	}
	return &Recorder{o: o, pending: map[key]*cursorcloud.DayUsage{}}
}

// Count adds one request to its day's aggregate. It never blocks on I/O.
func (r *Recorder) Count(_ context.Context, u cursorcloud.Usage) {
	if r.o.Observe != nil {
		r.o.Observe(u)
	}
	day := r.o.Now().UTC().Format(time.DateOnly)
	r.mu.Lock()
	defer r.mu.Unlock()
	r.add(cursorcloud.DayUsage{Day: day, UserID: u.UserID, Route: u.Route, Decision: u.Decision, Requests: 1, Up: u.Up, Down: u.Down})
}

// add folds row into pending; r.mu is held.
func (r *Recorder) add(row cursorcloud.DayUsage) {
	k := key{day: row.Day, user: row.UserID, route: row.Route, decision: row.Decision}
	if _, ok := r.pending[k]; !ok && len(r.pending) >= r.o.MaxPending {
		k.route, k.user = overflowRoute, ""
		row.Route, row.UserID = overflowRoute, ""
	}
	p, ok := r.pending[k]
	if !ok {
		p = &cursorcloud.DayUsage{Day: row.Day, UserID: row.UserID, Route: row.Route, Decision: row.Decision}
		r.pending[k] = p
	}
	p.Requests += row.Requests
	p.Up += row.Up
	p.Down += row.Down
}

// Flush writes what is pending in one store call; on failure the rows wait
// for the next flush.
func (r *Recorder) Flush(ctx context.Context) error {
	r.mu.Lock()
	rows := make([]cursorcloud.DayUsage, 0, len(r.pending))
	for _, p := range r.pending {
		rows = append(rows, *p)
	}
	r.pending = map[key]*cursorcloud.DayUsage{}
	r.mu.Unlock()
	if len(rows) == 0 {
		return nil
	}
	if err := r.o.Store.AddCloudUsage(ctx, rows); err != nil {
		r.mu.Lock()
		for _, row := range rows {
			r.add(row)
		}
		r.mu.Unlock()
		return err
	}
	return nil
}

// Run flushes every FlushInterval until ctx ends, then once more (bounded
// by a few seconds) so a stopping replica loses nothing it counted.
func (r *Recorder) Run(ctx context.Context) {
	t := time.NewTicker(r.o.FlushInterval)
	defer t.Stop()
	for {
		select {
		case <-ctx.Done():
			fctx, cancel := context.WithTimeout(context.WithoutCancel(ctx), 5*time.Second)
			defer cancel()
			if err := r.Flush(fctx); err != nil {
				r.o.Logger.Warn("flush cursor cloud ledger at shutdown", zap.Error(err))
			}
			return
		case <-t.C:
			if err := r.Flush(ctx); err != nil && ctx.Err() == nil {
				r.o.Logger.Warn("flush cursor cloud ledger", zap.Error(err))
			}
		}
	}
}
