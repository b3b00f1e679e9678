package transport

import (
	"context"
	"sync"

	agentv1 "keygate/gen/cursor/agent/v1"
)

// queue is an unbounded FIFO: the append path pushes without blocking and
// the run pulls at its own pace. What it holds stays charged to the
// transport's ledger until the run takes it, so a caller cannot pile up
// appends faster than its runs read them beyond Config.MaxHeldBytes.
type queue struct {
	ledger *ledger
	mu     sync.Mutex
	items  []queued
	ready  chan struct{} // holds one token while items is non-empty
}

// queued is one message and the bytes charged for it.
type queued struct {
	msg  *agentv1.AgentClientMessage
	size int64
}

var _ Inbox = (*queue)(nil)

func newQueue(l *ledger) *queue { return &queue{ledger: l, ready: make(chan struct{}, 1)} }

func (q *queue) push(m queued) {
	q.mu.Lock()
	q.items = append(q.items, m)
	q.mu.Unlock()
	select {
	case q.ready <- struct{}{}:
	default:
	}
}

func (q *queue) Next(ctx context.Context) (*agentv1.AgentClientMessage, error) {
	for {
		q.mu.Lock()
		if len(q.items) > 0 {
			m := q.items[0]
			q.items[0] = queued{}
			q.items = q.items[1:]
			more := len(q.items) > 0
			q.mu.Unlock()
			q.ledger.give(m.size)
			if more {
				select {
				case q.ready <- struct{}{}:
				default:
				}
			}
			return m.msg, nil
		}
		q.mu.Unlock()
		select {
		case <-ctx.Done():
			return nil, ctx.Err()
		case <-q.ready:
		}
	}
}

// drain removes and returns every message not read yet, still charged.
func (q *queue) drain() []queued {
	q.mu.Lock()
	defer q.mu.Unlock()
	items := q.items
	q.items = nil
	return items
}

// discard drops every message not read yet and returns their bytes.
func (q *queue) discard() {
	for _, m := range q.drain() {
		q.ledger.give(m.size)
	}
}
