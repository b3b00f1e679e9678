package relstore

import (
	"context"
	"fmt"
)

// CheckpointStorage is what one conversation's checkpoints occupy, in
// logical bytes of their columns (the engines' page and index overhead is
// not counted; it scales the same way).
type CheckpointStorage struct {
	Checkpoints int64
	HeaderBytes int64
	// DeltaRows and DeltaBytes are the checkpoint_messages rows: one per
	// message a checkpoint appends.
	DeltaRows  int64
	DeltaBytes int64
	// FullCopyRows is how many list rows a layout storing each
	// checkpoint's full message list would hold (the sum of lengths).
	FullCopyRows int64
}

// Bytes is the total stored for the checkpoints.
func (s CheckpointStorage) Bytes() int64 { return s.HeaderBytes + s.DeltaBytes }

// FullCopyBytes estimates the full-copy layout: the same headers plus one
// list row, of the average size measured here, per message of every list.
func (s CheckpointStorage) FullCopyBytes() int64 {
	if s.DeltaRows == 0 {
		return s.HeaderBytes
	}
	return s.HeaderBytes + s.FullCopyRows*s.DeltaBytes/s.DeltaRows
}

// CheckpointStorage measures a conversation's checkpoint storage.
func (s *Store) CheckpointStorage(ctx context.Context, conversationID string) (CheckpointStorage, error) {
	var out CheckpointStorage
	err := s.engine.Read(ctx, func(tx Tx) error {
		var err error
		out, err = tx.CheckpointStorage(ctx, conversationID)
		return err
	})
	if err != nil {
		return CheckpointStorage{}, fmt.Errorf("measure checkpoint storage of %q: %w", conversationID, err)
	}
	return out, nil
}
