package main

import (
	"context"
	"sync/atomic"
	"time"

	"keygate/domain/conversation"
	"keygate/ports"
)

// countedLoads wraps the conversation store the stack's engine and run
// layer share, counting full conversation loads and the time they take:
// the part of a turn's cost that grows with the conversation.
type countedLoads struct {
	ports.ConversationStore
	calls, nanos, messages *atomic.Int64
}

func newCountedLoads(cs ports.ConversationStore) countedLoads {
	return countedLoads{ConversationStore: cs, calls: new(atomic.Int64), nanos: new(atomic.Int64), messages: new(atomic.Int64)}
}

func (c countedLoads) Load(ctx context.Context, checkpointID string) (conversation.Checkpoint, []conversation.Message, error) {
	start := time.Now()
	cp, msgs, err := c.ConversationStore.Load(ctx, checkpointID)
	c.calls.Add(1)
	c.nanos.Add(int64(time.Since(start)))
	c.messages.Add(int64(len(msgs)))
	return cp, msgs, err
}

// snapshot returns the loads, their total time and messages so far.
func (c countedLoads) snapshot() (int64, time.Duration, int64) {
	return c.calls.Load(), time.Duration(c.nanos.Load()), c.messages.Load()
}

var _ ports.ConversationStore = countedLoads{}
