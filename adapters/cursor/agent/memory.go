package agent

import (
	"sync"
	"time"

	agentv1 "keygate/gen/cursor/agent/v1"
)

// convMemory remembers, per conversation and across turns, the blobs the
// client confirmed it holds and the last checkpoint published to it: a blob
// is then SET once, and a follow-up on the same stream starts from the
// state the client has. It is safe for concurrent use; it holds at most
// maxConvs conversations and forgets the least recently used first, which
// costs that conversation only re-sent blobs.
type convMemory struct {
	now   func() time.Time
	mu    sync.Mutex
	convs map[string]*convState
}

type convState struct {
	confirmed map[string]bool
	latest    *agentv1.ConversationStateStructure
	used      time.Time
}

// maxConvs bounds the per-conversation memory.
const maxConvs = 1024

func newConvMemory(now func() time.Time) *convMemory {
	return &convMemory{now: now, convs: map[string]*convState{}}
}

// conv returns the state of id, created if needed; m.mu is held.
func (m *convMemory) conv(id string) *convState {
	c, ok := m.convs[id]
	if !ok {
		if len(m.convs) >= maxConvs {
			m.evict()
		}
		c = &convState{confirmed: map[string]bool{}}
		m.convs[id] = c
	}
	c.used = m.now()
	return c
}

// confirmed reports whether the client holds blob of conversation conv.
func (m *convMemory) confirmed(conv, blob string) bool {
	m.mu.Lock()
	defer m.mu.Unlock()
	return m.conv(conv).confirmed[blob]
}

// confirm records that the client holds blob of conversation conv.
func (m *convMemory) confirm(conv, blob string) {
	m.mu.Lock()
	defer m.mu.Unlock()
	m.conv(conv).confirmed[blob] = true
}

// latest returns the last checkpoint published for conv, or nil.
func (m *convMemory) latest(conv string) *agentv1.ConversationStateStructure {
	m.mu.Lock()
	defer m.mu.Unlock()
	return m.conv(conv).latest
}

// setLatest records st as the last checkpoint published for conv.
func (m *convMemory) setLatest(conv string, st *agentv1.ConversationStateStructure) {
	m.mu.Lock()
	defer m.mu.Unlock()
	m.conv(conv).latest = st
}

// evict forgets the least recently used conversation; m.mu is held.
func (m *convMemory) evict() {
	var oldest string
	var at time.Time
	for id, c := range m.convs {
		if oldest == "" || c.used.Before(at) {
			oldest, at = id, c.used
		}
	}
	delete(m.convs, oldest)
}
