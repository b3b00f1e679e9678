package checkpoint

import (
	"crypto/sha256"

	"google.golang.org/protobuf/proto"

	"keygate/domain/conversation"
)

// Blobs are blob contents by raw blob id (the id's bytes as a string).
type Blobs map[string][]byte

// Put stores data and returns its id, SHA-256 of data.
func (b Blobs) Put(data []byte) []byte {
	sum := sha256.Sum256(data)
	b[string(sum[:])] = data
	return sum[:]
}

// putMessage stores m's canonical encoding, whose id is m's hash, without
// copying or hashing it again: blobs are only read once built.
func (b Blobs) putMessage(m conversation.Message) []byte {
	sum := m.Hash()
	b[string(sum[:])] = m.EncodedShared()
	return sum[:]
}

// PutProto stores the deterministic encoding of m.
func (b Blobs) PutProto(m proto.Message) []byte {
	data, err := proto.MarshalOptions{Deterministic: true}.Marshal(m)
	if err != nil {
		// Generated messages built by this package always marshal.
		panic(err)
	}
	return b.Put(data)
}
