package auth

import (
	"context"
	"strings"
	"sync"
	"time"

	"go.uber.org/zap"

	"keygate/ports"
)

// Bounds of the groups recorded per user: the identity provider's list is
// a network input.
const (
	maxRecordedGroups = 256
	maxGroupBytes     = 256
	// recordInterval is how stale an unchanged record may get before a
	// request writes it again: every console request carries the groups in
	// header mode, and must not write on each.
	recordInterval = time.Minute
	// maxRemembered bounds the users whose last record the gate remembers.
	maxRemembered = 10_000
)

// RecordGroupsWith makes the gate record, for each user it sees (a request
// through the trusted proxy; an OIDC sign-in), the groups their identity
// provider asserts, admitted or not, so that the Cursor proxy can refuse
// the gateway tokens of a user the console now refuses. Call it before
// serving requests.
func (g *Gate) RecordGroupsWith(store ports.MembershipStore) {
	g.members = &groupRecorder{store: store, now: time.Now, seen: map[string]recorded{}, log: g.log}
}

type recorded struct {
	groups string
	at     time.Time
}

// groupRecorder writes a user's groups when they changed or the record
// is older than recordInterval.
type groupRecorder struct {
	store ports.MembershipStore
	now   func() time.Time
	log   *zap.Logger
	mu    sync.Mutex
	seen  map[string]recorded
}

// record stores groups as user's. A failure is logged, not returned: the
// request itself is decided by the role map either way.
func (r *groupRecorder) record(ctx context.Context, user string, groups []string) {
	if r == nil {
		return
	}
	groups = boundGroups(groups)
	key, now := strings.Join(groups, "\n"), r.now()
	r.mu.Lock()
	last, ok := r.seen[user]
	fresh := ok && last.groups == key && now.Sub(last.at) < recordInterval
	r.mu.Unlock()
	if fresh {
		return
	}
	if err := r.store.RecordGroups(ctx, user, groups, now); err != nil {
		r.log.Error("record the groups of a user", zap.String("user_id", user), zap.Error(err))
		return
	}
	r.mu.Lock()
	if len(r.seen) >= maxRemembered {
		clear(r.seen)
	}
	r.seen[user] = recorded{groups: key, at: now}
	r.mu.Unlock()
}

// boundGroups keeps at most maxRecordedGroups groups of at most
// maxGroupBytes each; a group cut short matches no configured group, so
// the bound can only take a role away.
func boundGroups(groups []string) []string {
	out := make([]string, 0, min(len(groups), maxRecordedGroups))
	for _, grp := range groups {
		if len(out) == maxRecordedGroups {
			break
		}
		if len(grp) > maxGroupBytes {
			continue
		}
		out = append(out, grp)
	}
	return out
}
