package conversation

import (
	"fmt"
	"slices"
)

// Change is a requested write to a conversation: attach messages to a base
// checkpoint, provided the conversation's head is still the expected one.
// Build it with [AppendTo], [BranchFrom] or [ReplaceWith]; turn it into a
// [Plan] to learn what the store must look up, then into a [Decision].
type Change struct {
	expectedHeadID string
	base           Checkpoint
	messages       []Message
	replace        bool
}

// AppendTo appends msgs to head, the head the writer last saw.
func AppendTo(head Checkpoint, msgs ...Message) Change {
	return Change{expectedHeadID: head.id, base: head, messages: slices.Clone(msgs)}
}

// ConversationID is the conversation the change writes to: its base's.
func (c Change) ConversationID() string { return c.base.ConversationID() }

// BranchFrom attaches msgs to from, an older checkpoint, making the result
// the new head (rollback or edit). The old branch stays readable; the write
// still fails with ErrStaleHead when the head is no longer expectedHeadID.
func BranchFrom(expectedHeadID string, from Checkpoint, msgs ...Message) Change {
	return Change{expectedHeadID: expectedHeadID, base: from, messages: slices.Clone(msgs)}
}

// ReplaceWith replaces the whole list by msgs (compaction): the result is a
// child of the conversation root whose delta is msgs.
func ReplaceWith(expectedHeadID string, root Checkpoint, msgs ...Message) Change {
	return Change{expectedHeadID: expectedHeadID, base: root, messages: slices.Clone(msgs), replace: true}
}

// Plan is a validated change with its candidate checkpoints precomputed:
// candidate i is the state after the first i+1 messages. A store looks up
// which candidates and messages it already holds and passes them to
// [Plan.Decide]. Computing a plan costs O(len(messages)).
type Plan struct {
	change     Change
	candidates []Checkpoint
}

// Plan validates the change: at least one message, distinct ids and runtime
// event ids, a base of the same conversation, and a root base for a
// replacement. It does not look at the rest of the conversation.
func (c Change) Plan() (Plan, error) {
	if c.base.id == "" {
		return Plan{}, fmt.Errorf("plan change: %w: no base checkpoint", ErrInvalidCheckpoint)
	}
	if c.replace && !c.base.IsRoot() {
		return Plan{}, fmt.Errorf("plan change: %w: a replacement attaches to the root", ErrInvalidCheckpoint)
	}
	if len(c.messages) == 0 {
		return Plan{}, fmt.Errorf("plan change: %w: a change appends at least one message", ErrInvalidCheckpoint)
	}
	ids := make(map[string]bool, len(c.messages))
	events := make(map[string]bool)
	for _, m := range c.messages {
		if m.id == "" {
			return Plan{}, fmt.Errorf("plan change: %w", invalidf("zero message"))
		}
		if ids[m.id] || (m.runtimeEventID != "" && events[m.runtimeEventID]) {
			return Plan{}, fmt.Errorf("plan change: %w", invalidf("%q appears twice in one change", m.id))
		}
		ids[m.id], events[m.runtimeEventID] = true, m.runtimeEventID != ""
	}
	p := Plan{change: c, candidates: make([]Checkpoint, len(c.messages))}
	for i := range c.messages {
		p.candidates[i] = c.base.child(c.messages[:i+1])
	}
	return p, nil
}

// CandidateIDs returns the ids of the candidate checkpoints, shortest first.
// The store reports which of them it already holds in [Facts].
func (p Plan) CandidateIDs() []string {
	ids := make([]string, len(p.candidates))
	for i, c := range p.candidates {
		ids[i] = c.id
	}
	return ids
}

// MessageIDs returns the ids of the messages the change writes.
func (p Plan) MessageIDs() []string {
	ids := make([]string, len(p.change.messages))
	for i, m := range p.change.messages {
		ids[i] = m.id
	}
	return ids
}

// RuntimeEventIDs returns the non-empty runtime event ids of the messages.
func (p Plan) RuntimeEventIDs() []string {
	var ids []string
	for _, m := range p.change.messages {
		if m.runtimeEventID != "" {
			ids = append(ids, m.runtimeEventID)
		}
	}
	return ids
}

// Target returns the checkpoint the change leads to if applied in full.
func (p Plan) Target() Checkpoint { return p.candidates[len(p.candidates)-1] }

// Base returns the checkpoint the change attaches to. A store walks its
// chain to fill [Facts.BaseHolds] and checks that it is stored.
func (p Plan) Base() Checkpoint { return p.change.base }
