package tab

import (
	"container/list"
	"sync"

	"keygate/domain/tab"
)

// lru is a map bounded in entries and bytes that forgets the least
// recently used entry first. It is not safe for concurrent use: memory
// guards it.
type lru[V any] struct {
	maxEntries, maxBytes, bytes int
	size                        func(key string, v V) int
	order                       *list.List // of *entry[V], most recent first
	items                       map[string]*list.Element
}

type entry[V any] struct {
	key  string
	v    V
	size int
}

func newLRU[V any](maxEntries, maxBytes int, size func(string, V) int) *lru[V] {
	return &lru[V]{maxEntries: maxEntries, maxBytes: maxBytes, size: size, order: list.New(), items: map[string]*list.Element{}}
}

func (c *lru[V]) get(key string) (V, bool) {
	el, ok := c.items[key]
	if !ok {
		var zero V
		return zero, false
	}
	c.order.MoveToFront(el)
	return el.Value.(*entry[V]).v, true
}

// put stores v under key; a value larger than the whole budget is not kept.
func (c *lru[V]) put(key string, v V) {
	c.remove(key)
	n := c.size(key, v)
	if n > c.maxBytes {
		return
	}
	c.items[key] = c.order.PushFront(&entry[V]{key: key, v: v, size: n})
	c.bytes += n
	for len(c.items) > c.maxEntries || c.bytes > c.maxBytes {
		c.remove(c.order.Back().Value.(*entry[V]).key)
	}
}

func (c *lru[V]) remove(key string) {
	if el, ok := c.items[key]; ok {
		e := el.Value.(*entry[V])
		c.bytes -= e.size
		c.order.Remove(el)
		delete(c.items, key)
	}
}

// Limits bound the memory of a Service; the zero value takes DefaultLimits.
type Limits struct {
	// Entries and Bytes bound each of the three caches: the typing-through
	// offers (one per user and file), the predictions awaiting a fate (one
	// per user and request) and the rejected edits (per user and file).
	Entries, Bytes int
	// Rejected is how many rejected edits are kept per user and file.
	Rejected int
}

// DefaultLimits keep up to 4,096 entries and 4 MiB per cache, and the last
// 8 rejected edits per user and file.
var DefaultLimits = Limits{Entries: 4096, Bytes: 4 << 20, Rejected: 8}

// predicted is what a fate refers to: the file and the edits offered.
type predicted struct {
	path  string
	edits []tab.Edit
}

// memory is what a Service remembers between requests, per user.
type memory struct {
	mu       sync.Mutex
	rejectN  int
	offers   *lru[tab.Offer]
	made     *lru[predicted]
	rejected *lru[[]tab.Edit]
}

func newMemory(l Limits) *memory {
	return &memory{
		rejectN: l.Rejected,
		offers:  newLRU(l.Entries, l.Bytes, func(k string, o tab.Offer) int { return len(k) + o.Size() }),
		made: newLRU(l.Entries, l.Bytes, func(k string, p predicted) int {
			return len(k) + len(p.path) + editsSize(p.edits)
		}),
		rejected: newLRU(l.Entries, l.Bytes, func(k string, es []tab.Edit) int { return len(k) + editsSize(es) }),
	}
}

func editsSize(es []tab.Edit) int {
	n := 0
	for _, e := range es {
		n += len(e.Text) + 32
	}
	return n
}

// key scopes an entry to a user: ids cannot contain NUL.
func key(userID, s string) string { return userID + "\x00" + s }

func (m *memory) offer(userID, path string) (tab.Offer, bool) {
	m.mu.Lock()
	defer m.mu.Unlock()
	return m.offers.get(key(userID, path))
}

// remember keeps a prediction for its fate and, when it inserts at the
// cursor, its offer for typing through; a prediction without one forgets
// the file's earlier offer.
func (m *memory) remember(userID, requestID string, in tab.Input, edits []tab.Edit, o tab.Offer, hasOffer bool) {
	m.mu.Lock()
	defer m.mu.Unlock()
	if hasOffer {
		m.offers.put(key(userID, in.Path), o)
	} else {
		m.offers.remove(key(userID, in.Path))
	}
	if len(edits) > 0 && requestID != "" {
		m.made.put(key(userID, requestID), predicted{path: in.Path, edits: edits})
	}
}

// rejectedIn returns the edits the user rejected recently in path.
func (m *memory) rejectedIn(userID, path string) []tab.Edit {
	m.mu.Lock()
	defer m.mu.Unlock()
	es, _ := m.rejected.get(key(userID, path))
	return es
}

// reject remembers the edits of a rejected prediction, newest kept, and
// forgets the file's offer (its suggestion was just turned down).
func (m *memory) reject(userID, requestID string) {
	m.mu.Lock()
	defer m.mu.Unlock()
	p, ok := m.made.get(key(userID, requestID))
	if !ok {
		return
	}
	m.made.remove(key(userID, requestID))
	k := key(userID, p.path)
	old, _ := m.rejected.get(k)
	es := append(append([]tab.Edit(nil), old...), p.edits...)
	if len(es) > m.rejectN {
		es = es[len(es)-m.rejectN:]
	}
	m.rejected.put(k, es)
	m.offers.remove(k)
}
