package agent

import (
	"errors"
	"fmt"
	"sort"
	"time"

	"go.uber.org/zap"

	"keygate/adapters/cursor/checkpoint"
	"keygate/adapters/cursor/output"
	agentv1 "keygate/gen/cursor/agent/v1"
)

// ErrAckTimeout marks blobs the client did not acknowledge in time.
var ErrAckTimeout = errors.New("client did not acknowledge blobs in time")

// BlobError is a KV reply with an error.
type BlobError struct {
	Op      string
	Message string
}

func (e *BlobError) Error() string { return fmt.Sprintf("kv %s: %s", e.Op, e.Message) }

// syncBlobs SETs every blob the client has not confirmed and waits for all
// ACKs, handling other client messages meanwhile.
func (s *session) syncBlobs(blobs checkpoint.Blobs) error {
	waiting, err := s.setBlobs(blobs)
	if err != nil {
		return err
	}
	// Every SET is waited for, even after one failed, so no KV request is
	// left unanswered when the turn moves on.
	var failed error
	err = s.await(func(m *agentv1.KvClientMessage) (bool, error) {
		return s.setResult(waiting, m, &failed) && len(waiting) == 0, nil
	}, len(waiting) == 0)
	if err != nil {
		return err
	}
	return failed
}

// setBlobs sends a SET for every blob the client has not confirmed and
// returns the KV ids of the replies it waits for.
func (s *session) setBlobs(blobs checkpoint.Blobs) (map[uint32]string, error) {
	ids := make([]string, 0, len(blobs))
	for id := range blobs {
		if !s.h.confirmed(s.convID, id) {
			ids = append(ids, id)
		}
	}
	sort.Strings(ids)
	waiting := make(map[uint32]string, len(ids))
	for _, id := range ids {
		kv, err := s.turn.Output.NextKvID()
		if err != nil {
			return nil, err
		}
		if err := s.send(output.SetBlob(kv, []byte(id), blobs[id])); err != nil {
			return nil, err
		}
		waiting[kv] = id
	}
	return waiting, nil
}

// setResult files m when it answers one of the SETs in waiting: the blob
// is confirmed, or *failed records the first error. It reports whether m
// was such a reply.
func (s *session) setResult(waiting map[uint32]string, m *agentv1.KvClientMessage, failed *error) bool {
	id, ok := waiting[m.GetId()]
	if !ok || m.GetSetBlobResult() == nil {
		return false
	}
	delete(waiting, m.GetId())
	if e := m.GetSetBlobResult().GetError(); e != nil {
		if *failed == nil {
			*failed = &BlobError{Op: "set", Message: e.GetMessage()}
		}
	} else {
		s.h.confirm(s.convID, id)
	}
	return true
}

// unacked is a checkpoint published once the client acknowledged its
// blobs, while the run goes on: the user turn's checkpoint, so that the
// provider request does not wait for a client round trip. Then follow it.
type unacked struct {
	state   *agentv1.ConversationStateStructure
	then    []*agentv1.AgentServerMessage
	waiting map[uint32]string
	failed  error
	timer   *time.Timer
}

// publishWhenAcked SETs the blobs of st and publishes st, then the
// messages then, once every SET is acknowledged, without waiting here.
// Until then serve holds the run's events back, so the client still gets
// st before anything that comes after it. Unacknowledged blobs (an error,
// the timeout) skip st as publish does; then is sent in any case.
func (s *session) publishWhenAcked(blobs checkpoint.Blobs, st *agentv1.ConversationStateStructure, then ...*agentv1.AgentServerMessage) {
	waiting, err := s.setBlobs(blobs)
	u := &unacked{state: st, then: then, waiting: waiting, failed: err}
	if err != nil || len(waiting) == 0 {
		s.unacked = u
		s.resolveUnacked(nil)
		return
	}
	u.timer = time.NewTimer(s.h.o.AckTimeout)
	s.unacked = u
}

// onUnackedReply files a KV reply for the waiting checkpoint and publishes
// it when it was the last.
func (s *session) onUnackedReply(m *agentv1.KvClientMessage) {
	u := s.unacked
	if s.setResult(u.waiting, m, &u.failed) && len(u.waiting) == 0 {
		s.resolveUnacked(nil)
	}
}

// resolveUnacked publishes the waiting checkpoint, or skips it when err or
// a failed SET says the client lacks a blob, and sends what follows it.
func (s *session) resolveUnacked(err error) {
	u := s.unacked
	s.unacked = nil
	if u.timer != nil {
		u.timer.Stop()
	}
	if err == nil {
		err = u.failed
	}
	if err != nil {
		s.log.Warn("checkpoint not published", zap.Error(err))
	} else if s.send(output.Checkpoint(u.state)) == nil {
		s.h.setLatest(s.convID, u.state)
	}
	s.sendAll(u.then)
}

// getBlob reads a blob from the client's KV store.
func (s *session) getBlob(id []byte) ([]byte, error) {
	kv, err := s.turn.Output.NextKvID()
	if err != nil {
		return nil, err
	}
	if err := s.send(output.GetBlob(kv, id)); err != nil {
		return nil, err
	}
	var data []byte
	err = s.await(func(m *agentv1.KvClientMessage) (bool, error) {
		if m.GetId() != kv || m.GetGetBlobResult() == nil {
			return false, nil
		}
		r := m.GetGetBlobResult()
		if r.Error != nil || r.BlobData == nil {
			// An empty answer for a blob history needs is an error, never
			// an empty history (§6.3 rule 5).
			return true, &BlobError{Op: "get", Message: fmt.Sprintf("blob %x: %s", id, r.GetError().GetMessage())}
		}
		data = r.GetBlobData()
		return true, nil
	}, false)
	return data, err
}

// await handles client messages until match accepts a KV reply. Other
// messages go through onClient, unless the run has not started yet, when
// they wait in the backlog for it.
func (s *session) await(match func(*agentv1.KvClientMessage) (bool, error), done bool) error {
	if done {
		return nil
	}
	timer := time.NewTimer(s.h.o.AckTimeout)
	defer timer.Stop()
	for {
		select {
		case m := <-s.inbox:
			if kv := m.GetKvClientMessage(); kv != nil {
				ok, err := match(kv)
				if err != nil || ok {
					return err
				}
				continue
			}
			if s.handle == nil {
				s.backlog = append(s.backlog, m)
				continue
			}
			s.onClient(m)
		case err := <-s.readErr:
			s.readErr <- err
			return fmt.Errorf("wait for kv reply: %w", err)
		case <-s.ctx.Done():
			return s.ctx.Err()
		case <-timer.C:
			return ErrAckTimeout
		}
	}
}

// publish sends states once their blobs are acknowledged. If they are not,
// the states are skipped (never sent with blobs the client lacks) and the
// turn goes on.
func (s *session) publish(blobs checkpoint.Blobs, states ...*agentv1.ConversationStateStructure) {
	if err := s.syncBlobs(blobs); err != nil {
		s.log.Warn("checkpoint not published", zap.Error(err))
		return
	}
	for _, st := range states {
		if err := s.send(output.Checkpoint(st)); err != nil {
			return
		}
	}
	if n := len(states); n > 0 {
		s.h.setLatest(s.convID, states[n-1])
	}
}

// project builds a checkpoint of the run's checkpoint id, from its known
// message list or else a load.
func (s *session) project(checkpointID string, summary string) (checkpoint.Projection, error) {
	msgs := s.curMsgs
	if !s.curKnown || checkpointID != s.cur {
		var err error
		if _, msgs, err = s.h.o.Conversations.Load(s.ctx, checkpointID); err != nil {
			return checkpoint.Projection{}, fmt.Errorf("load checkpoint %s: %w", checkpointID, err)
		}
	}
	p := checkpoint.Projection{Base: s.base, Messages: msgs, Turn: s.ui, Mode: s.compiled.Mode.Wire(),
		UsedTokens: s.usedTok, MaxTokens: s.maxTok, Summary: summary}
	if s.todosSet {
		p.Todos = append([]*agentv1.TodoItem{}, s.todos...)
	}
	return p, nil
}

func merge(a, b checkpoint.Blobs) checkpoint.Blobs {
	for k, v := range b {
		a[k] = v
	}
	return a
}
