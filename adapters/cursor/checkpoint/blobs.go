package checkpoint

import (
	"crypto/sha256"

	"google.golang.org/protobuf/proto"
)

// Blobs are blob contents by raw blob id (the id's bytes as a string).
type Blobs map[string][]byte

// Put stores data and returns its id, SHA-256 of data.
func (b Blobs) Put(data []byte) []byte {
	sum := sha256.Sum256(data)
	b[string(sum[:])] = data
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
