package relstore

import (
	"context"
	"fmt"
	"time"

	"keygate/ports"
)

// Eraser implements ports.ConversationEraser.
type Eraser struct{ s *Store }

var _ ports.ConversationEraser = Eraser{}

// Eraser returns the conversation eraser.
func (s *Store) Eraser() Eraser { return Eraser{s} }

// EraseConversation implements ports.ConversationEraser: the conversation
// is locked like any writer's, its rows deleted, then its image blobs
// where no other message or blob names them, all in one transaction.
func (e Eraser) EraseConversation(ctx context.Context, id string) error {
	err := e.s.engine.Write(ctx, func(tx Tx) error {
		if _, err := tx.LockConversation(ctx, id); err != nil {
			return err
		}
		blobs, err := tx.EraseConversationRows(ctx, id)
		if err != nil {
			return err
		}
		for _, b := range blobs {
			if err := tx.EraseBlobIfUnused(ctx, b); err != nil {
				return err
			}
		}
		return nil
	})
	if err != nil {
		return fmt.Errorf("erase conversation %s: %w", id, err)
	}
	return nil
}

// StaleConversations implements ports.ConversationEraser.
func (e Eraser) StaleConversations(ctx context.Context, cutoff time.Time, limit int) ([]string, error) {
	var out []string
	err := e.s.engine.Read(ctx, func(tx Tx) error {
		var err error
		out, err = tx.StaleConversations(ctx, cutoff, limit32(limit))
		return err
	})
	if err != nil {
		return nil, fmt.Errorf("list stale conversations: %w", err)
	}
	return out, nil
}
