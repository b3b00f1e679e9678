package conversation

import "slices"

// Facts is what a store knows about a [Plan] at decision time, read inside
// the transaction that will apply the decision.
type Facts struct {
	// HeadID is the conversation's current head.
	HeadID string
	// ExistingCheckpoints are those of [Plan.CandidateIDs] already stored.
	ExistingCheckpoints []string
	// StoredMessages are the stored messages whose id is one of
	// [Plan.MessageIDs] or whose runtime event id is one of
	// [Plan.RuntimeEventIDs].
	StoredMessages []Message
	// BaseHolds are those of [Plan.MessageIDs] that the base checkpoint's
	// full list already holds (found by walking its chain).
	BaseHolds []string
}

// Outcome says what a store does with a [Decision].
type Outcome uint8

// Decision outcomes.
const (
	// Unchanged: the change is already stored; write nothing, leave the head.
	Unchanged Outcome = iota + 1
	// MoveHead: the target checkpoint exists (a retried turn rebuilt the same
	// state); write nothing but make it the head.
	MoveHead
	// Create: insert NewMessages and Checkpoint, then make it the head.
	Create
)

// String returns the outcome name.
func (o Outcome) String() string {
	switch o {
	case Unchanged:
		return "unchanged"
	case MoveHead:
		return "move_head"
	case Create:
		return "create"
	default:
		return "unknown"
	}
}

// Decision is what a store must do to apply a change.
type Decision struct {
	Outcome Outcome
	// Checkpoint is the resulting checkpoint: the new one for Create, the
	// existing target otherwise.
	Checkpoint Checkpoint
	// NewMessages are the messages to insert (those not stored yet), in
	// order; empty unless Outcome is Create.
	NewMessages []Message
	// Reused is how many of the change's messages needed no new checkpoint:
	// those the base already held plus those covered by a stored candidate.
	Reused int
}

// Decide applies the append rules to what the store knows:
//
//   - a message whose id, or runtime event id, is stored with other content
//     is a *MessageConflictError (ErrMessageConflict), whatever the head;
//   - a message the base already holds is not appended again (storing a
//     message once is idempotent); the target is the base plus the rest;
//   - if the target checkpoint exists, the change is idempotent: Unchanged
//     when the head is the target or has moved on (a late retry), MoveHead
//     when the head is still the expected one;
//   - otherwise a head other than the expected one is ErrStaleHead;
//   - otherwise Create a checkpoint whose parent is the deepest stored
//     candidate (or the base), so a retried turn reuses the matching part of
//     the chain, and insert the messages not stored yet.
//
// Checkpoint ids name states, so inserting a Create checkpoint whose id is
// already stored is harmless; a store may insert with "on conflict do
// nothing" and needs no lookup beyond [Facts] for correctness.
func (p Plan) Decide(f Facts) (Decision, error) {
	stored := make(map[string]Message, len(f.StoredMessages))
	byEvent := make(map[string]Message)
	for _, m := range f.StoredMessages {
		stored[m.id] = m
		if m.runtimeEventID != "" {
			byEvent[m.runtimeEventID] = m
		}
	}
	var rest []Message
	for _, m := range p.change.messages {
		if s, ok := stored[m.id]; ok && !s.Equal(m) {
			return Decision{}, &MessageConflictError{ID: m.id, StoredID: s.id}
		}
		if s, ok := byEvent[m.runtimeEventID]; ok && m.runtimeEventID != "" && s.id != m.id {
			return Decision{}, &MessageConflictError{ID: m.id, StoredID: s.id, RuntimeEventID: m.runtimeEventID}
		}
		if !slices.Contains(f.BaseHolds, m.id) {
			rest = append(rest, m)
		}
	}
	base, candidates := p.change.base, p.candidates
	if len(rest) != len(p.change.messages) {
		candidates = make([]Checkpoint, len(rest))
		for i := range rest {
			candidates[i] = base.child(rest[:i+1])
		}
	}
	deepest := -1
	for i, c := range candidates {
		if slices.Contains(f.ExistingCheckpoints, c.id) {
			deepest = i
		}
	}
	if deepest == len(candidates)-1 {
		target := base
		if len(candidates) > 0 {
			target = candidates[deepest]
		}
		d := Decision{Outcome: Unchanged, Checkpoint: target, Reused: len(p.change.messages)}
		if f.HeadID == p.change.expectedHeadID && f.HeadID != target.id {
			d.Outcome = MoveHead
		}
		return d, nil
	}
	if f.HeadID != p.change.expectedHeadID {
		return Decision{}, ErrStaleHead
	}
	parent := base
	if deepest >= 0 {
		parent = candidates[deepest]
	}
	var fresh []Message
	for _, m := range rest {
		if _, ok := stored[m.id]; !ok {
			fresh = append(fresh, m)
		}
	}
	reused := len(p.change.messages) - len(rest) + deepest + 1
	return Decision{Outcome: Create, Checkpoint: parent.child(rest[deepest+1:]), NewMessages: fresh, Reused: reused}, nil
}
