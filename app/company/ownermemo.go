package company

import (
	"sync"
	"time"

	"keygate/domain/access"
	"keygate/ports"
)

// ownerMemo remembers, for a short while, owners the store confirmed, so
// that one turn's checks (its conversation's claim, the run claim, the
// context anchor read and write, the final apply: five reads of the same
// owner row) cost one read. An object never changes hands; the memo is
// bounded in time all the same, so that a conversation erased elsewhere
// and claimed again under its old id by someone else is seen within ttl.
type ownerMemo struct {
	clock ports.Clock
	ttl   time.Duration

	mu sync.Mutex
	m  map[ownerKey]ownerSeen
}

type ownerKey struct {
	kind access.Kind
	id   string
}

type ownerSeen struct {
	userID string
	until  time.Time
}

// maxOwnerMemo bounds the memo; when full, expired entries go, and all of
// them if none had.
const maxOwnerMemo = 4096

// owner returns the remembered owner of (kind, id), if any is fresh.
func (m *ownerMemo) owner(kind access.Kind, id string) (string, bool) {
	if m == nil {
		return "", false
	}
	now := m.clock.Now()
	m.mu.Lock()
	defer m.mu.Unlock()
	s, ok := m.m[ownerKey{kind, id}]
	if !ok || !now.Before(s.until) {
		return "", false
	}
	return s.userID, true
}

// owns reports whether userID is the remembered, fresh owner of (kind, id).
func (m *ownerMemo) owns(kind access.Kind, id, userID string) bool {
	owner, ok := m.owner(kind, id)
	return ok && owner == userID
}

// saw remembers userID as the owner of (kind, id) the store just confirmed.
func (m *ownerMemo) saw(kind access.Kind, id, userID string) {
	if m == nil {
		return
	}
	now := m.clock.Now()
	m.mu.Lock()
	defer m.mu.Unlock()
	if len(m.m) >= maxOwnerMemo {
		for k, s := range m.m {
			if !now.Before(s.until) {
				delete(m.m, k)
			}
		}
		if len(m.m) >= maxOwnerMemo {
			clear(m.m)
		}
	}
	m.m[ownerKey{kind, id}] = ownerSeen{userID: userID, until: now.Add(m.ttl)}
}

// RememberOwners makes t remember the owners it read or recorded for ttl
// on clock (a Cursor turn then reads its conversation's owner once instead
// of five times) and returns t. Within ttl a caller the store confirmed as
// an object's owner is not asked about again; anyone else always is.
func (t *Tenancy) RememberOwners(clock ports.Clock, ttl time.Duration) *Tenancy {
	t.memo = &ownerMemo{clock: clock, ttl: ttl, m: map[ownerKey]ownerSeen{}}
	return t
}
