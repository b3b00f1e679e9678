package company

import (
	"context"
	"fmt"
	"sync"
	"time"

	"go.uber.org/zap"

	"keygate/ports"
)

// UnopenedWindow is how long a replica reports unready after a relayed
// append did not open: long enough for a readiness probe and an operator to
// see it; a replica whose key differs keeps failing and so stays unready.
const UnopenedWindow = 5 * time.Minute

// SealedRelay is an append relay whose payloads are sealed with the
// deployment's secret key while they wait in the database.
type SealedRelay struct {
	next  ports.AppendRelay
	box   ports.SecretBox
	clock ports.Clock
	log   *zap.Logger

	mu       sync.Mutex
	unopened int
	last     time.Time
}

var _ ports.AppendRelay = (*SealedRelay)(nil)

// SealRelay wraps an append relay so that every payload, and every frame of
// published output, is sealed with box while it waits in the database. A forwarded BidiAppend carries the
// client's headers, Cursor's bearer token among them, and the prompt
// itself; a copy of the database must not yield either. Every replica
// shares the secret key, so the replica that takes a payload can open it;
// when one does not, Ready says so.
func SealRelay(next ports.AppendRelay, box ports.SecretBox, clock ports.Clock, logger *zap.Logger) *SealedRelay {
	return &SealedRelay{next: next, box: box, clock: clock, log: logger.Named("relay")}
}

// Forward implements ports.AppendRelay.
func (r *SealedRelay) Forward(ctx context.Context, owner, key string, payload []byte, opens bool) error {
	sealed, err := r.box.Seal(payload)
	if err != nil {
		return fmt.Errorf("seal relayed append: %w", err)
	}
	return r.next.Forward(ctx, owner, key, sealed, opens)
}

// Acquire delivers opened payloads. One that does not open (sealed under a
// key this replica does not have) is dropped with an error in the log and
// counted for Ready: it cannot be delivered, and blocking the key on it
// would stall the turn. The lease seals the output it publishes.
func (r *SealedRelay) Acquire(ctx context.Context, key string, deliver func([]byte)) (ports.RunLease, error) {
	l, err := r.next.Acquire(ctx, key, func(sealed []byte) {
		payload, ok := r.open(sealed, "relayed append")
		if ok {
			deliver(payload)
		}
	})
	if err != nil {
		return nil, err
	}
	return sealedLease{RunLease: l, box: r.box}, nil
}

// Follow implements ports.AppendRelay, opening the published frames. A
// frame that does not open ends the page there (counted for Ready): the
// stream cannot skip it without losing a message.
func (r *SealedRelay) Follow(ctx context.Context, key string, after int64) (ports.OutputPage, error) {
	page, err := r.next.Follow(ctx, key, after)
	if err != nil {
		return page, err
	}
	out := page
	out.Frames, out.End, out.Last = nil, nil, after
	for _, f := range page.Frames {
		opened, ok := r.open(f, "published output")
		if !ok {
			return out, nil
		}
		out.Frames = append(out.Frames, opened)
		out.Last++
	}
	if page.End != nil {
		end, ok := r.open(page.End, "published output")
		if !ok {
			return out, nil
		}
		out.End = end
	}
	out.Last = page.Last
	return out, nil
}

// Changes implements ports.AppendRelay.
func (r *SealedRelay) Changes(key string) (<-chan struct{}, func()) {
	return r.next.Changes(key)
}

func (r *SealedRelay) open(sealed []byte, what string) ([]byte, bool) {
	payload, err := r.box.Open(sealed)
	if err != nil {
		r.mu.Lock()
		r.unopened++
		r.last = r.clock.Now()
		r.mu.Unlock()
		r.log.Error(what+" dropped: it does not open with this replica's secret key", zap.Error(err))
		return nil, false
	}
	return payload, true
}

// sealedLease seals what it publishes and the payloads it keeps.
type sealedLease struct {
	ports.RunLease
	box ports.SecretBox
}

func (l sealedLease) Keep(ctx context.Context, owner string, payload []byte, opens bool) error {
	sealed, err := l.box.Seal(payload)
	if err != nil {
		return fmt.Errorf("seal kept append: %w", err)
	}
	return l.RunLease.Keep(ctx, owner, sealed, opens)
}

func (l sealedLease) Publish(ctx context.Context, frames [][]byte, end []byte) error {
	sealed := make([][]byte, len(frames))
	for i, f := range frames {
		s, err := l.box.Seal(f)
		if err != nil {
			return fmt.Errorf("seal published output: %w", err)
		}
		sealed[i] = s
	}
	var sealedEnd []byte
	if end != nil {
		s, err := l.box.Seal(end)
		if err != nil {
			return fmt.Errorf("seal published output: %w", err)
		}
		sealedEnd = s
	}
	return l.RunLease.Publish(ctx, sealed, sealedEnd)
}

// Ready is a readiness check: it fails, saying why, while a relayed append
// that did not open with this replica's secret key is less than
// UnopenedWindow old. Such a replica answers its clients' appends with 200
// and then drops them, so its turns stall; a load balancer should stop
// sending it users until every replica has the same key.
func (r *SealedRelay) Ready(context.Context) error {
	r.mu.Lock()
	n, last := r.unopened, r.last
	r.mu.Unlock()
	if n == 0 {
		return nil
	}
	ago := r.clock.Now().Sub(last)
	if ago >= UnopenedWindow {
		return nil
	}
	return fmt.Errorf("%d relayed appends from other replicas did not open with this replica's secret key since start, the last %s ago: "+
		"the replicas do not share one secret key, and turns whose appends reach another replica stall", n, ago.Round(time.Second))
}
