package transport

import (
	"context"
	"sync"

	agentv1 "keygate/gen/cursor/agent/v1"
)

// queue is an unbounded FIFO: the append path pushes without blocking and
// the run pulls at its own pace.
type queue struct {
	mu    sync.Mutex
	items []*agentv1.AgentClientMessage
	ready chan struct{} // holds one token while items is non-empty
}

var _ Inbox = (*queue)(nil)

func newQueue() *queue { return &queue{ready: make(chan struct{}, 1)} }

func (q *queue) push(m *agentv1.AgentClientMessage) {
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
			q.items[0] = nil
			q.items = q.items[1:]
			more := len(q.items) > 0
			q.mu.Unlock()
			if more {
				select {
				case q.ready <- struct{}{}:
				default:
				}
			}
			return m, nil
		}
		q.mu.Unlock()
		select {
		case <-ctx.Done():
			return nil, ctx.Err()
		case <-q.ready:
		}
	}
}

// drain removes and returns every message not read yet.
func (q *queue) drain() []*agentv1.AgentClientMessage {
	q.mu.Lock()
	defer q.mu.Unlock()
	items := q.items
	q.items = nil
	return items
}
