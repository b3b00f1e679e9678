package conversation

import "fmt"

// MessageIDs returns the full message list of the last checkpoint of chain,
// which must run from the conversation root to that checkpoint, each element
// the parent of the next. It checks the links and lengths; it cannot check
// digests without the messages (see [Materialize]).
func MessageIDs(chain []Checkpoint) ([]string, error) {
	if len(chain) == 0 || !chain[0].IsRoot() {
		return nil, fmt.Errorf("read chain: %w: the chain starts at the root", ErrInvalidCheckpoint)
	}
	ids := make([]string, 0, chain[len(chain)-1].length)
	for i := 1; i < len(chain); i++ {
		prev, c := chain[i-1], chain[i]
		if c.parentID != prev.id || c.conversationID != prev.conversationID {
			return nil, fmt.Errorf("read chain: %w: %q is not a child of %q", ErrInvalidCheckpoint, c.id, prev.id)
		}
		if c.length != prev.length+len(c.delta) {
			return nil, fmt.Errorf("read chain: %w: %q has length %d, want %d",
				ErrInvalidCheckpoint, c.id, c.length, prev.length+len(c.delta))
		}
		ids = append(ids, c.delta...)
	}
	return ids, nil
}

// Materialize returns the full message list of the last checkpoint of chain
// and verifies the chain completely: links, lengths, and every checkpoint's
// digest recomputed from the messages. byID must hold every message the
// chain names.
func Materialize(chain []Checkpoint, byID map[string]Message) ([]Message, error) {
	ids, err := MessageIDs(chain)
	if err != nil {
		return nil, err
	}
	msgs := make([]Message, len(ids))
	seen := make(map[string]bool, len(ids))
	for i, id := range ids {
		m, ok := byID[id]
		if !ok || m.id != id {
			return nil, fmt.Errorf("materialize checkpoint: %w: message %q is missing", ErrInvalidCheckpoint, id)
		}
		if seen[id] {
			return nil, fmt.Errorf("materialize checkpoint: %w: message %q appears twice", ErrInvalidCheckpoint, id)
		}
		seen[id] = true
		msgs[i] = m
	}
	d, n := chain[0].digest, 0
	for _, c := range chain[1:] {
		for range c.delta {
			d = d.next(msgs[n])
			n++
		}
		if d != c.digest {
			return nil, fmt.Errorf("materialize checkpoint: %w: digest of %q does not match its messages",
				ErrInvalidCheckpoint, c.id)
		}
	}
	return msgs, nil
}
