package agent

import (
	"errors"
	"fmt"
	"sort"
	"time"

	"go.uber.org/zap"

	"keygate/adapters/cursor/checkpoint"
	"keygate/adapters/cursor/output"
	"keygate/domain/conversation"
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
	need, err := s.setBlobs(blobs)
	if err != nil {
		return err
	}
	// Every SET is waited for, even after one failed, so no KV request is
	// left unanswered when the turn moves on.
	done, failed := s.setsDone(need)
	err = s.await(func(*agentv1.KvClientMessage) (bool, error) {
		done, failed = s.setsDone(need)
		return done, nil
	}, done)
	if err != nil {
		return err
	}
	return failed
}

// setBlobs returns the blobs the client has not confirmed, after sending
// a SET for each that has none in flight (a SET sent ahead for a predicted
// checkpoint counts).
func (s *session) setBlobs(blobs checkpoint.Blobs) ([]string, error) {
	need := make([]string, 0, len(blobs))
	for id := range blobs {
		if !s.h.confirmed(s.convID, id) {
			need = append(need, id)
		}
	}
	sort.Strings(need)
	for _, id := range need {
		if s.inflight[id] {
			continue
		}
		kv, err := s.turn.Output.NextKvID()
		if err != nil {
			return nil, err
		}
		if err := s.send(output.SetBlob(kv, []byte(id), blobs[id])); err != nil {
			return nil, err
		}
		delete(s.setFailed, id)
		s.sets[kv], s.inflight[id] = id, true
	}
	return need, nil
}

// fileSet files a KV reply to one of the session's SETs: the blob is
// confirmed, or its failure is kept for whoever waits for it. It reports
// whether m was such a reply. Every KV reply passes here first, so one a
// waiter does not expect is not lost.
func (s *session) fileSet(m *agentv1.KvClientMessage) bool {
	id, ok := s.sets[m.GetId()]
	if !ok || m.GetSetBlobResult() == nil {
		return false
	}
	delete(s.sets, m.GetId())
	delete(s.inflight, id)
	if e := m.GetSetBlobResult().GetError(); e != nil {
		s.setFailed[id] = &BlobError{Op: "set", Message: e.GetMessage()}
	} else {
		s.h.confirm(s.convID, id)
	}
	return true
}

// setsDone reports whether every blob of need is answered, and the first
// failure among them.
func (s *session) setsDone(need []string) (bool, error) {
	var failed error
	for _, id := range need {
		switch {
		case s.inflight[id]:
			return false, nil
		case s.setFailed[id] != nil && failed == nil:
			failed = s.setFailed[id]
		}
	}
	return true, failed
}

// unacked is a checkpoint published once the client acknowledged its
// blobs, while the run goes on: the user turn's checkpoint, so that the
// provider request does not wait for a client round trip. Then follow it.
type unacked struct {
	state *agentv1.ConversationStateStructure
	then  []*agentv1.AgentServerMessage
	need  []string
	timer *time.Timer
}

// publishWhenAcked SETs the blobs of st and publishes st, then the
// messages then, once every SET is acknowledged, without waiting here.
// Until then serve holds the run's events back, so the client still gets
// st before anything that comes after it. Unacknowledged blobs (an error,
// the timeout) skip st as publish does; then is sent in any case.
func (s *session) publishWhenAcked(blobs checkpoint.Blobs, st *agentv1.ConversationStateStructure, then ...*agentv1.AgentServerMessage) {
	need, err := s.setBlobs(blobs)
	s.unacked = &unacked{state: st, then: then, need: need}
	if err != nil {
		s.resolveUnacked(err)
		return
	}
	if done, failed := s.setsDone(need); done {
		s.resolveUnacked(failed)
		return
	}
	s.unacked.timer = time.NewTimer(s.h.o.AckTimeout)
}

// onUnacked publishes the waiting checkpoint once a KV reply completed
// its blobs.
func (s *session) onUnacked() {
	if done, failed := s.setsDone(s.unacked.need); done {
		s.resolveUnacked(failed)
	}
}

// resolveUnacked publishes the waiting checkpoint, or skips it when err
// says the client lacks a blob, and sends what follows it.
func (s *session) resolveUnacked(err error) {
	u := s.unacked
	s.unacked = nil
	if u.timer != nil {
		u.timer.Stop()
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
				s.fileSet(kv)
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
	return s.projection(msgs, summary), nil
}

// projection is the turn's checkpoint over the message list msgs.
func (s *session) projection(msgs []conversation.Message, summary string) checkpoint.Projection {
	p := checkpoint.Projection{Base: s.base, Messages: msgs, Turn: s.ui, Mode: s.compiled.Mode.Wire(),
		UsedTokens: s.usedTok, MaxTokens: s.maxTok, Summary: summary}
	if s.todosSet {
		p.Todos = append([]*agentv1.TodoItem{}, s.todos...)
	}
	return p
}

// predicted is the user turn's checkpoint projected before the engine
// commits it: the settled state of checkpoint id and its blobs.
type predicted struct {
	id    string
	state *agentv1.ConversationStateStructure
	blobs checkpoint.Blobs
}

// predict projects the checkpoint the run's initial messages make on the
// history just read (the usual outcome: all of them appended to head) and
// SETs its blobs at once, so the client's ACKs travel while the engine
// claims the run and writes the messages. A commit that ends elsewhere
// projects its own checkpoint; blobs SET for nothing cost the client only
// storage.
func (s *session) predict(head conversation.Checkpoint) {
	s.predicted = nil
	msgs := s.compiled.Run.InitialMessages
	if !s.curKnown || s.cur != head.ID() || len(msgs) == 0 {
		return
	}
	plan, err := conversation.AppendTo(head, msgs...).Plan()
	if err != nil {
		return // the engine refuses the same change and says why
	}
	all := append(s.curMsgs[:len(s.curMsgs):len(s.curMsgs)], msgs...)
	st, blobs := checkpoint.Settled(s.projection(all, ""))
	if _, err := s.setBlobs(blobs); err != nil {
		s.log.Info("blobs not sent ahead", zap.Error(err))
		return
	}
	s.predicted = &predicted{id: plan.Target().ID(), state: st, blobs: blobs}
}

func merge(a, b checkpoint.Blobs) checkpoint.Blobs {
	for k, v := range b {
		a[k] = v
	}
	return a
}
