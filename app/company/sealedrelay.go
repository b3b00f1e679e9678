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

// SealRelay wraps an append relay so that every payload is sealed with box
// while it waits in the database. A forwarded BidiAppend carries the
// client's headers, Cursor's bearer token among them, and the prompt
// itself; a copy of the database must not yield either. Every replica
// shares the secret key, so the replica that takes a payload can open it;
// when one does not, Ready says so.
func SealRelay(next ports.AppendRelay, box ports.SecretBox, clock ports.Clock, logger *zap.Logger) *SealedRelay {
	return &SealedRelay{next: next, box: box, clock: clock, log: logger.Named("relay")}
}

// Forward implements ports.AppendRelay.
func (r *SealedRelay) Forward(ctx context.Context, owner, key string, payload []byte) error {
	sealed, err := r.box.Seal(payload)
	if err != nil {
		return fmt.Errorf("seal relayed append: %w", err)
	}
	return r.next.Forward(ctx, owner, key, sealed)
}

// Claim delivers opened payloads. One that does not open (sealed under a
// key this replica does not have) is dropped with an error in the log and
// counted for Ready: it cannot be delivered, and blocking the key on it
// would stall the turn.
func (r *SealedRelay) Claim(ctx context.Context, key string, deliver func([]byte)) (func(), error) {
	return r.next.Claim(ctx, key, func(sealed []byte) {
		payload, err := r.box.Open(sealed)
		if err != nil {
			r.mu.Lock()
			r.unopened++
			r.last = r.clock.Now()
			r.mu.Unlock()
			r.log.Error("relayed append dropped: it does not open with this replica's secret key", zap.Error(err))
			return
		}
		deliver(payload)
	})
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
