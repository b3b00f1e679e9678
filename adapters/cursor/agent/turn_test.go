package agent_test

import (
	"context"
	"errors"
	"slices"
	"sync"

	. "github.com/onsi/ginkgo/v2"

	"keygate/adapters/cursor/agent"
	"keygate/adapters/cursor/transport"
	agentv1 "keygate/gen/cursor/agent/v1"
)

// fakeTurn is a turn served in memory, for specs that call ServeRun
// directly: the spec feeds its inbox and reads what the run layer sent.
// KV SETs are answered only when the spec calls ackSets, or at once with
// autoAck. failSend, when set, makes Send fail from the first message it
// matches on, like a stream that is gone, and counts the attempts after it.
type fakeTurn struct {
	inbox    chan *agentv1.AgentClientMessage
	autoAck  bool
	failSend func(*agentv1.AgentServerMessage) bool

	mu        sync.Mutex
	out       []*agentv1.AgentServerMessage
	ids       uint32
	acked     map[uint32]bool
	failed    bool
	afterFail int
}

var errGone = errors.New("stream gone")

func newFakeTurn() *fakeTurn {
	return &fakeTurn{inbox: make(chan *agentv1.AgentClientMessage, 64), acked: map[uint32]bool{}}
}

// serve runs handler on the turn of request id req opened by first, with
// ctx's identity; the returned channel receives ServeRun's result.
func (t *fakeTurn) serve(ctx context.Context, handler *agent.Handler, req string, first *agentv1.AgentClientMessage) <-chan error {
	ctx, cancel := context.WithCancel(ctx)
	DeferCleanup(cancel)
	done := make(chan error, 1)
	go func() {
		done <- handler.ServeRun(ctx, &transport.Turn{RequestID: req, Request: first.GetRunRequest(), Inbox: t, Output: t})
	}()
	return done
}

func (t *fakeTurn) Next(ctx context.Context) (*agentv1.AgentClientMessage, error) {
	select {
	case m := <-t.inbox:
		return m, nil
	case <-ctx.Done():
		return nil, ctx.Err()
	}
}

func (t *fakeTurn) Send(m *agentv1.AgentServerMessage) error {
	t.mu.Lock()
	defer t.mu.Unlock()
	if t.failed || (t.failSend != nil && t.failSend(m)) {
		if t.failed {
			t.afterFail++
		}
		t.failed = true
		return errGone
	}
	t.out = append(t.out, m)
	if kv := m.GetKvServerMessage(); t.autoAck && kv.GetSetBlobArgs() != nil {
		t.ackLocked(kv.GetId())
	}
	return nil
}

func (t *fakeTurn) next() (uint32, error) {
	t.mu.Lock()
	defer t.mu.Unlock()
	t.ids++
	return t.ids, nil
}

func (t *fakeTurn) NextExecID() (uint32, error)        { return t.next() }
func (t *fakeTurn) NextInteractionID() (uint32, error) { return t.next() }
func (t *fakeTurn) NextKvID() (uint32, error)          { return t.next() }

func (t *fakeTurn) sent() []*agentv1.AgentServerMessage {
	t.mu.Lock()
	defer t.mu.Unlock()
	return slices.Clone(t.out)
}

// sendsAfterFailure counts the sends attempted after the first failed one.
func (t *fakeTurn) sendsAfterFailure() int {
	t.mu.Lock()
	defer t.mu.Unlock()
	return t.afterFail
}

// ackSets answers every SET sent so far that it did not answer yet.
func (t *fakeTurn) ackSets() {
	t.mu.Lock()
	defer t.mu.Unlock()
	for _, m := range t.out {
		if kv := m.GetKvServerMessage(); kv.GetSetBlobArgs() != nil {
			t.ackLocked(kv.GetId())
		}
	}
}

func (t *fakeTurn) acks() int {
	t.mu.Lock()
	defer t.mu.Unlock()
	return len(t.acked)
}

func (t *fakeTurn) ackLocked(id uint32) {
	if t.acked[id] {
		return
	}
	t.acked[id] = true
	t.inbox <- &agentv1.AgentClientMessage{Message: &agentv1.AgentClientMessage_KvClientMessage{KvClientMessage: &agentv1.KvClientMessage{
		Id: id, Message: &agentv1.KvClientMessage_SetBlobResult{SetBlobResult: &agentv1.SetBlobResult{}}}}}
}
