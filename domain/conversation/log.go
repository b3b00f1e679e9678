package conversation

import (
	"fmt"
	"slices"
)

// Log is a whole conversation held in memory: its messages, every checkpoint
// and the head. It applies changes with exactly the rules a store follows
// ([Change.Plan], [Plan.Decide]) and so serves as the reference a store's
// contract suite and in-memory fakes compare against. A Log is not safe for
// concurrent use.
type Log struct {
	root        Checkpoint
	head        string
	checkpoints map[string]Checkpoint
	messages    map[string]Message
	// events maps a runtime event id to the message that holds it.
	events map[string]string
}

// NewLog returns the log of a new conversation: only the root, which is
// also the head.
func NewLog(conversationID string) (*Log, error) {
	root, err := Root(conversationID)
	if err != nil {
		return nil, err
	}
	return &Log{
		root: root, head: root.id,
		checkpoints: map[string]Checkpoint{root.id: root},
		messages:    map[string]Message{},
		events:      map[string]string{},
	}, nil
}

// Root returns the conversation's root checkpoint.
func (l *Log) Root() Checkpoint { return l.root }

// Head returns the current head checkpoint.
func (l *Log) Head() Checkpoint { return l.checkpoints[l.head] }

// Checkpoint returns the checkpoint with id and whether it exists.
func (l *Log) Checkpoint(id string) (Checkpoint, bool) {
	c, ok := l.checkpoints[id]
	return c, ok
}

// Apply plans and decides ch against the log's state and executes the
// decision. It returns the decision, a *MessageConflictError or
// ErrStaleHead, and leaves the log unchanged on error.
func (l *Log) Apply(ch Change) (Decision, error) {
	d, err := l.Decide(ch)
	if err != nil {
		return Decision{}, err
	}
	switch d.Outcome {
	case Create:
		for _, m := range d.NewMessages {
			l.messages[m.id] = m
			if m.runtimeEventID != "" {
				l.events[m.runtimeEventID] = m.id
			}
		}
		l.checkpoints[d.Checkpoint.id] = d.Checkpoint
		l.head = d.Checkpoint.id
	case MoveHead:
		l.head = d.Checkpoint.id
	}
	return d, nil
}

// Decide plans and decides ch against the log's state without executing
// the decision, so that a fake store can check what the decision would
// write (the blobs its new messages name) before [Log.Apply] writes it.
func (l *Log) Decide(ch Change) (Decision, error) {
	plan, err := ch.Plan()
	if err != nil {
		return Decision{}, err
	}
	if plan.change.base.conversationID != l.root.conversationID {
		return Decision{}, fmt.Errorf("apply change: %w: base of another conversation", ErrInvalidCheckpoint)
	}
	facts := Facts{HeadID: l.head}
	for _, id := range plan.CandidateIDs() {
		if _, ok := l.checkpoints[id]; ok {
			facts.ExistingCheckpoints = append(facts.ExistingCheckpoints, id)
		}
	}
	for _, m := range plan.change.messages {
		if s, ok := l.messages[m.id]; ok {
			facts.StoredMessages = append(facts.StoredMessages, s)
		}
		if id, ok := l.events[m.runtimeEventID]; ok && id != m.id {
			facts.StoredMessages = append(facts.StoredMessages, l.messages[id])
		}
	}
	held, err := l.Messages(plan.change.base.id)
	if err != nil {
		return Decision{}, err
	}
	for _, m := range held {
		if slices.Contains(plan.MessageIDs(), m.id) {
			facts.BaseHolds = append(facts.BaseHolds, m.id)
		}
	}
	return plan.Decide(facts)
}

// Messages returns the full, verified message list of checkpoint id.
func (l *Log) Messages(id string) ([]Message, error) {
	var chain []Checkpoint
	for cur := id; cur != ""; {
		c, ok := l.checkpoints[cur]
		if !ok {
			return nil, fmt.Errorf("read checkpoint %q: %w: unknown checkpoint", cur, ErrInvalidCheckpoint)
		}
		chain = append(chain, c)
		cur = c.parentID
	}
	for i, j := 0, len(chain)-1; i < j; i, j = i+1, j-1 {
		chain[i], chain[j] = chain[j], chain[i]
	}
	return Materialize(chain, l.messages)
}
