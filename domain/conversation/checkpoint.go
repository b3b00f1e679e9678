package conversation

import (
	"crypto/sha256"
	"encoding/hex"
	"fmt"
	"slices"
)

// Digest is the chained content digest of a checkpoint's full message list:
//
//	digest(root)   = SHA-256("keygate/checkpoint/v1" 0x00 conversationID)
//	digest(l ++ m) = SHA-256(digest(l) || SHA-256(Encode(m)))
//
// It is chained per message, so a child costs one hash per appended message
// and the digest depends only on the list, not on how it was split into
// checkpoints: the same state reached twice has the same digest.
type Digest [sha256.Size]byte

// String returns the digest as lower-case hex.
func (d Digest) String() string { return hex.EncodeToString(d[:]) }

// ParseDigest parses the hex form produced by [Digest.String].
func ParseDigest(s string) (Digest, error) {
	var d Digest
	b, err := hex.DecodeString(s)
	if err != nil || len(b) != len(d) {
		return d, fmt.Errorf("parse digest %q: %w", s, ErrInvalidCheckpoint)
	}
	copy(d[:], b)
	return d, nil
}

func rootDigest(conversationID string) Digest {
	return sha256.Sum256([]byte("keygate/checkpoint/v1\x00" + conversationID))
}

func (d Digest) next(m Message) Digest {
	var buf [2 * sha256.Size]byte
	copy(buf[:sha256.Size], d[:])
	copy(buf[sha256.Size:], m.hash[:])
	return sha256.Sum256(buf[:])
}

// checkpointID derives a checkpoint id from its digest. Ids are therefore
// deterministic: a retried write computes the id it wrote before, which is
// how a store finds the checkpoint to reuse.
func checkpointID(d Digest) string { return "ck_" + hex.EncodeToString(d[:16]) }

// Checkpoint is an immutable message list of one conversation. It stores
// only the ids it appends to its parent (its delta); the full list is the
// deltas of its chain from the root, concatenated. The root has no parent
// and no messages; a replacement (compaction) is a child of the root whose
// delta is the whole new list. Build checkpoints with [Root], [Change.Plan]
// and [Plan.Decide], or rebuild a stored one with [RehydrateCheckpoint].
type Checkpoint struct {
	id             string
	conversationID string
	parentID       string
	length         int
	digest         Digest
	delta          []string
}

// CheckpointRecord is the stored form of a checkpoint, field for field.
type CheckpointRecord struct {
	ID             string
	ConversationID string
	// ParentID is empty for the root.
	ParentID string
	// Length is the number of messages in the full list.
	Length int
	Digest Digest
	// Delta is the ids this checkpoint appends to its parent, in order.
	Delta []string
}

// Root returns the empty root checkpoint of a conversation. Every
// conversation has exactly one, with a deterministic id.
func Root(conversationID string) (Checkpoint, error) {
	if conversationID == "" {
		return Checkpoint{}, fmt.Errorf("root checkpoint: %w: empty conversation id", ErrInvalidCheckpoint)
	}
	d := rootDigest(conversationID)
	return Checkpoint{id: checkpointID(d), conversationID: conversationID, digest: d}, nil
}

// RehydrateCheckpoint rebuilds a stored checkpoint. It is the only way back
// from storage and checks what a single record can show: the id matches the
// digest, the root is empty and has the conversation's root digest, and a
// child appends at least one message and is at least as long as its delta.
// Links between records are checked by [MessageIDs] and [Materialize].
func RehydrateCheckpoint(r CheckpointRecord) (Checkpoint, error) {
	c := Checkpoint{
		id: r.ID, conversationID: r.ConversationID, parentID: r.ParentID,
		length: r.Length, digest: r.Digest, delta: slices.Clone(r.Delta),
	}
	bad := func(why string) (Checkpoint, error) {
		return Checkpoint{}, fmt.Errorf("rehydrate checkpoint %q: %w: %s", r.ID, ErrInvalidCheckpoint, why)
	}
	switch {
	case r.ConversationID == "":
		return bad("empty conversation id")
	case r.ID != checkpointID(r.Digest):
		return bad("id does not match digest")
	case r.ParentID == "" && (r.Length != 0 || len(r.Delta) != 0 || r.Digest != rootDigest(r.ConversationID)):
		return bad("a root is empty and has the root digest")
	case r.ParentID != "" && (len(r.Delta) == 0 || r.Length < len(r.Delta)):
		return bad("a child appends at least one message and is at least as long as its delta")
	case slices.Contains(r.Delta, ""):
		return bad("empty message id in delta")
	}
	return c, nil
}

// ID returns the checkpoint id, derived from the digest.
func (c Checkpoint) ID() string { return c.id }

// ConversationID returns the conversation the checkpoint belongs to.
func (c Checkpoint) ConversationID() string { return c.conversationID }

// ParentID returns the parent's id, or "" for the root.
func (c Checkpoint) ParentID() string { return c.parentID }

// IsRoot reports whether c is the conversation's empty root.
func (c Checkpoint) IsRoot() bool { return c.parentID == "" && c.id != "" }

// Len returns the number of messages in the full list.
func (c Checkpoint) Len() int { return c.length }

// Digest returns the chained digest of the full list.
func (c Checkpoint) Digest() Digest { return c.digest }

// Delta returns a copy of the ids c appends to its parent.
func (c Checkpoint) Delta() []string { return slices.Clone(c.delta) }

// Record returns the stored form of c.
func (c Checkpoint) Record() CheckpointRecord {
	return CheckpointRecord{
		ID: c.id, ConversationID: c.conversationID, ParentID: c.parentID,
		Length: c.length, Digest: c.digest, Delta: slices.Clone(c.delta),
	}
}

// child returns the checkpoint that appends msgs to c.
func (c Checkpoint) child(msgs []Message) Checkpoint {
	d := c.digest
	delta := make([]string, len(msgs))
	for i, m := range msgs {
		d = d.next(m)
		delta[i] = m.id
	}
	return Checkpoint{
		id: checkpointID(d), conversationID: c.conversationID, parentID: c.id,
		length: c.length + len(msgs), digest: d, delta: delta,
	}
}
