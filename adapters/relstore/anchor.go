package relstore

import (
	"context"
	"fmt"

	"keygate/ports"
)

// Anchors implements ports.InputAnchorStore.
type Anchors struct{ s *Store }

var _ ports.InputAnchorStore = Anchors{}

// Anchor implements ports.InputAnchorStore.
func (a Anchors) Anchor(ctx context.Context, conversationID, inputID, checkpointID string) (string, error) {
	var anchored string
	err := a.s.engine.Write(ctx, func(tx Tx) error {
		known, err := tx.ExistingCheckpoints(ctx, conversationID, []string{checkpointID})
		if err != nil {
			return err
		}
		if len(known) == 0 {
			return fmt.Errorf("checkpoint %q: %w", checkpointID, ports.ErrNotFound)
		}
		if err := tx.UpsertAnchor(ctx, conversationID, inputID, checkpointID, a.s.now()); err != nil {
			return err
		}
		anchored, err = tx.GetAnchor(ctx, conversationID, inputID)
		return err
	})
	if err != nil {
		return "", fmt.Errorf("anchor input %q: %w", inputID, err)
	}
	return anchored, nil
}

// AnchorOf implements ports.InputAnchorStore.
func (a Anchors) AnchorOf(ctx context.Context, conversationID, inputID string) (string, error) {
	var anchored string
	err := a.s.engine.Read(ctx, func(tx Tx) error {
		var err error
		anchored, err = tx.GetAnchor(ctx, conversationID, inputID)
		return err
	})
	if err != nil {
		return "", fmt.Errorf("read anchor of input %q: %w", inputID, err)
	}
	return anchored, nil
}
