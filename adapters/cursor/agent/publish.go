package agent

import (
	"context"
	"errors"
	"fmt"
	"sort"
	"time"

	"go.uber.org/zap"

	"keygate/adapters/cursor/checkpoint"
	"keygate/adapters/cursor/output"
	agentv1 "keygate/gen/cursor/agent/v1"
)

// errAckTimeout marks blobs the client did not acknowledge in time.
var errAckTimeout = errors.New("client did not acknowledge blobs in time")

// blobError is a KV reply with an error.
type blobError struct {
	Op      string
	Message string
}

func (e *blobError) Error() string { return fmt.Sprintf("kv %s: %s", e.Op, e.Message) }

// publisher owns the turn's KV traffic with the client and the publication
// of checkpoints. It SETs the blobs a checkpoint refers to, files the
// client's replies, GETs the blobs the turn needs, and sends a checkpoint
// only once the client acknowledged every blob it refers to: a checkpoint
// whose blobs are refused or not acknowledged within ackTimeout is skipped
// (logged), never sent. Blobs the client confirmed are remembered per
// conversation (convMemory), so each is SET once, and the last checkpoint
// sent is remembered for a follow-up on the same stream.
//
// While it waits for a reply it hands every other client message to other.
// Only the turn's goroutine uses it.
type publisher struct {
	log        *zap.Logger
	wire       *wire
	in         *inbox
	mem        *convMemory
	ackTimeout time.Duration
	// conv is the turn's conversation id.
	conv string
	// other handles a client message that is not a KV reply.
	other func(context.Context, *agentv1.AgentClientMessage)

	// sets are the SETs in flight by KV id, inflight the same by blob id;
	// failed keeps the blobs whose last SET was refused.
	sets     map[uint32]string
	inflight map[string]bool
	failed   map[string]error
	// held is the checkpoint waiting for its ACKs (publishWhenAcked).
	held *held
}

func newPublisher(conv string, log *zap.Logger, w *wire, in *inbox, mem *convMemory, ackTimeout time.Duration) *publisher {
	return &publisher{conv: conv, log: log, wire: w, in: in, mem: mem, ackTimeout: ackTimeout,
		sets: map[uint32]string{}, inflight: map[string]bool{}, failed: map[string]error{}}
}

// begin starts a run that logs to log and builds on base: whatever the
// client's checkpoint refers to, the client holds, with no SET.
func (p *publisher) begin(log *zap.Logger, base *agentv1.ConversationStateStructure) {
	p.log = log
	for _, ids := range [][][]byte{base.GetRootPromptMessagesJson(), base.GetTurns()} {
		for _, id := range ids {
			p.mem.confirm(p.conv, string(id))
		}
	}
}

// latest is the last checkpoint sent for the conversation, or nil.
func (p *publisher) latest() *agentv1.ConversationStateStructure { return p.mem.latest(p.conv) }

// publish sends states once their blobs are acknowledged. If they are not,
// the states are skipped (never sent with blobs the client lacks) and the
// turn goes on.
func (p *publisher) publish(ctx context.Context, blobs checkpoint.Blobs, states ...*agentv1.ConversationStateStructure) {
	if err := p.sync(ctx, blobs); err != nil {
		p.skipped("checkpoint not published", err)
		return
	}
	for _, st := range states {
		if p.wire.send(output.Checkpoint(st)) != nil {
			return
		}
	}
	if n := len(states); n > 0 {
		p.mem.setLatest(p.conv, states[n-1])
	}
}

// skipped logs a checkpoint the client does not get, unless the stream is
// gone (the turn reports that once, when it ends).
func (p *publisher) skipped(what string, err error) {
	if !errors.Is(err, errStreamLost) {
		p.log.Warn(what, zap.Error(err))
	}
}

// sync SETs every blob the client has not confirmed and waits for all
// ACKs, handling other client messages meanwhile.
func (p *publisher) sync(ctx context.Context, blobs checkpoint.Blobs) error {
	need, err := p.set(blobs)
	if err != nil {
		return err
	}
	// Every SET is waited for, even after one failed, so no KV request is
	// left unanswered when the turn moves on.
	done, failed := p.answered(need)
	err = p.await(ctx, func(*agentv1.KvClientMessage) (bool, error) {
		done, failed = p.answered(need)
		return done, nil
	}, done)
	if err != nil {
		return err
	}
	return failed
}

// set returns the blobs the client has not confirmed, after sending a SET
// for each that has none in flight (a SET sent ahead for a predicted
// checkpoint counts).
func (p *publisher) set(blobs checkpoint.Blobs) ([]string, error) {
	need := make([]string, 0, len(blobs))
	for id := range blobs {
		if !p.mem.confirmed(p.conv, id) {
			need = append(need, id)
		}
	}
	sort.Strings(need)
	for _, id := range need {
		if p.inflight[id] {
			continue
		}
		kv, err := p.wire.kvID()
		if err != nil {
			return nil, err
		}
		if err := p.wire.send(output.SetBlob(kv, []byte(id), blobs[id])); err != nil {
			return nil, err
		}
		delete(p.failed, id)
		p.sets[kv], p.inflight[id] = id, true
	}
	return need, nil
}

// file files a KV reply to one of the publisher's SETs: the blob is
// confirmed, or its failure is kept for whoever waits for it. It reports
// whether m was such a reply. Every KV reply passes here first, so one a
// waiter does not expect is not lost.
func (p *publisher) file(m *agentv1.KvClientMessage) bool {
	id, ok := p.sets[m.GetId()]
	if !ok || m.GetSetBlobResult() == nil {
		return false
	}
	delete(p.sets, m.GetId())
	delete(p.inflight, id)
	if e := m.GetSetBlobResult().GetError(); e != nil {
		p.failed[id] = &blobError{Op: "set", Message: e.GetMessage()}
	} else {
		p.mem.confirm(p.conv, id)
	}
	return true
}

// answered reports whether every blob of need is answered, and the first
// failure among them.
func (p *publisher) answered(need []string) (bool, error) {
	var failed error
	for _, id := range need {
		switch {
		case p.inflight[id]:
			return false, nil
		case p.failed[id] != nil && failed == nil:
			failed = p.failed[id]
		}
	}
	return true, failed
}

// held is a checkpoint sent once the client acknowledged its blobs, while
// the run goes on (the user turn's checkpoint, so that the provider request
// does not wait for a client round trip), and the messages that follow it.
type held struct {
	state *agentv1.ConversationStateStructure
	then  []*agentv1.AgentServerMessage
	need  []string
	timer *time.Timer
}

// publishWhenAcked SETs the blobs of st and sends st, then the messages
// then, once every SET is acknowledged, without waiting here. Until then
// holding reports true and the turn holds the run's events back, so the
// client still gets st before anything that comes after it.
// Unacknowledged blobs (an error, the timeout) skip st as publish does;
// then is sent in any case.
func (p *publisher) publishWhenAcked(blobs checkpoint.Blobs, st *agentv1.ConversationStateStructure, then ...*agentv1.AgentServerMessage) {
	need, err := p.set(blobs)
	p.held = &held{state: st, then: then, need: need}
	if err != nil {
		p.release(err)
		return
	}
	if done, failed := p.answered(need); done {
		p.release(failed)
		return
	}
	p.held.timer = time.NewTimer(p.ackTimeout)
}

// holding reports whether a checkpoint waits for its ACKs.
func (p *publisher) holding() bool { return p.held != nil }

// heldTimeout fires when the held checkpoint's ACKs are overdue; nil when
// nothing is held.
func (p *publisher) heldTimeout() <-chan time.Time {
	if p.held == nil || p.held.timer == nil {
		return nil
	}
	return p.held.timer.C
}

// onReply sends the held checkpoint once a filed KV reply completed its
// blobs.
func (p *publisher) onReply() {
	if p.held == nil {
		return
	}
	if done, failed := p.answered(p.held.need); done {
		p.release(failed)
	}
}

// release sends the held checkpoint, or skips it when err says the client
// lacks a blob, and sends what follows it.
func (p *publisher) release(err error) {
	h := p.held
	p.held = nil
	if h.timer != nil {
		h.timer.Stop()
	}
	if err != nil {
		p.skipped("checkpoint not published", err)
	} else if p.wire.send(output.Checkpoint(h.state)) == nil {
		p.mem.setLatest(p.conv, h.state)
	}
	p.wire.emit(h.then...)
}

// get reads a blob from the client's KV store.
func (p *publisher) get(ctx context.Context, id []byte) ([]byte, error) {
	kv, err := p.wire.kvID()
	if err != nil {
		return nil, err
	}
	if err := p.wire.send(output.GetBlob(kv, id)); err != nil {
		return nil, err
	}
	var data []byte
	err = p.await(ctx, func(m *agentv1.KvClientMessage) (bool, error) {
		if m.GetId() != kv || m.GetGetBlobResult() == nil {
			return false, nil
		}
		r := m.GetGetBlobResult()
		if r.Error != nil || r.BlobData == nil {
			// An empty answer for a blob the history needs is an error,
			// never an empty history.
			return true, &blobError{Op: "get", Message: fmt.Sprintf("blob %x: %s", id, r.GetError().GetMessage())}
		}
		data = r.GetBlobData()
		return true, nil
	}, false)
	return data, err
}

// await handles client messages until match accepts a KV reply; other
// messages go to p.other. It gives up when the inbox or the stream fails,
// the turn stops (ctx ends), or no reply came within ackTimeout.
func (p *publisher) await(ctx context.Context, match func(*agentv1.KvClientMessage) (bool, error), done bool) error {
	if done {
		return nil
	}
	timer := time.NewTimer(p.ackTimeout)
	defer timer.Stop()
	for {
		select {
		case m := <-p.in.msgs:
			if kv := m.GetKvClientMessage(); kv != nil {
				p.file(kv)
				ok, err := match(kv)
				if err != nil || ok {
					return err
				}
				continue
			}
			p.other(ctx, m)
		case <-p.in.broken:
			return fmt.Errorf("wait for kv reply: %w", p.in.err)
		case <-p.wire.lost:
			return p.wire.failed()
		case <-ctx.Done():
			return ctx.Err()
		case <-timer.C:
			return errAckTimeout
		}
	}
}
