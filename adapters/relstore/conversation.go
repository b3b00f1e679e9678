package relstore

import (
	"context"
	"errors"
	"fmt"
	"time"

	"keygate/domain/conversation"
	"keygate/ports"
)

// Conversations implements ports.ConversationStore.
type Conversations struct{ s *Store }

var _ ports.ConversationStore = Conversations{}

// Open implements ports.ConversationStore.
func (c Conversations) Open(ctx context.Context, conversationID string) (conversation.Checkpoint, error) {
	head, err := c.Head(ctx, conversationID)
	if !errors.Is(err, ports.ErrNotFound) {
		return head, err
	}
	root, err := conversation.Root(conversationID)
	if err != nil {
		return conversation.Checkpoint{}, err
	}
	err = c.s.engine.Write(ctx, func(tx Tx) error {
		now := c.s.now()
		if err := tx.InsertConversation(ctx, conversationID, root.ID(), now); err != nil {
			return err
		}
		if err := insertCheckpoint(ctx, tx, root.Record(), now); err != nil {
			return err
		}
		head, err = headOf(ctx, tx, conversationID)
		return err
	})
	if err != nil {
		return conversation.Checkpoint{}, fmt.Errorf("open conversation %q: %w", conversationID, err)
	}
	return head, nil
}

// Head implements ports.ConversationStore.
func (c Conversations) Head(ctx context.Context, conversationID string) (conversation.Checkpoint, error) {
	var head conversation.Checkpoint
	err := c.s.engine.Read(ctx, func(tx Tx) error {
		var err error
		head, err = headOf(ctx, tx, conversationID)
		return err
	})
	if err != nil {
		return conversation.Checkpoint{}, fmt.Errorf("read head of %q: %w", conversationID, err)
	}
	return head, nil
}

// Load implements ports.ConversationStore.
func (c Conversations) Load(ctx context.Context, checkpointID string) (conversation.Checkpoint, []conversation.Message, error) {
	var (
		ck   conversation.Checkpoint
		msgs []conversation.Message
	)
	err := c.s.engine.Read(ctx, func(tx Tx) error {
		var err error
		ck, msgs, err = loadChain(ctx, tx, checkpointID)
		return err
	})
	if err != nil {
		return conversation.Checkpoint{}, nil, fmt.Errorf("load checkpoint %q: %w", checkpointID, err)
	}
	return ck, msgs, nil
}

// Apply implements ports.ConversationStore.
func (c Conversations) Apply(ctx context.Context, w ports.Write) (conversation.Decision, error) {
	plan, err := w.Change.Plan()
	if err != nil {
		return conversation.Decision{}, err
	}
	convID := plan.Base().ConversationID()
	var d conversation.Decision
	err = c.s.engine.Write(ctx, func(tx Tx) error {
		conv, err := tx.LockConversation(ctx, convID)
		if err != nil {
			return err
		}
		if w.RunID != "" {
			if _, err := ownedRun(ctx, tx, w.RunID, convID); err != nil {
				return err
			}
		}
		d, err = applyPlan(ctx, tx, conv, plan, w.RunID, c.s.now())
		return err
	})
	if err != nil {
		return conversation.Decision{}, fmt.Errorf("apply change to %q: %w", convID, err)
	}
	return d, nil
}

// headOf reads the conversation's head checkpoint.
func headOf(ctx context.Context, tx conversationRows, conversationID string) (conversation.Checkpoint, error) {
	conv, err := tx.GetConversation(ctx, conversationID)
	if err != nil {
		return conversation.Checkpoint{}, err
	}
	return checkpointByID(ctx, tx, conv.HeadID)
}

func checkpointByID(ctx context.Context, tx conversationRows, id string) (conversation.Checkpoint, error) {
	rec, err := tx.GetCheckpointHeader(ctx, id)
	if err != nil {
		return conversation.Checkpoint{}, err
	}
	if rec.Delta, err = tx.CheckpointDelta(ctx, id); err != nil {
		return conversation.Checkpoint{}, err
	}
	return conversation.RehydrateCheckpoint(rec)
}

// insertCheckpoint stores a header and its delta rows at ordinals
// parent length .. length-1.
func insertCheckpoint(ctx context.Context, tx conversationRows, rec conversation.CheckpointRecord, now time.Time) error {
	if err := tx.InsertCheckpointHeader(ctx, rec, now); err != nil {
		return err
	}
	first := rec.Length - len(rec.Delta)
	for i, id := range rec.Delta {
		if err := tx.InsertCheckpointMessage(ctx, rec, first+i, id); err != nil {
			return err
		}
	}
	return nil
}

// chainLink is one checkpoint of a loaded chain with its delta bodies.
type chainLink struct {
	record    conversation.CheckpointRecord
	createdAt time.Time
	bodies    [][]byte
}

// groupChain folds chain rows into one link per checkpoint.
func groupChain(rows []ChainRow) []chainLink {
	var links []chainLink
	for _, r := range rows {
		if len(links) == 0 || links[len(links)-1].record.ID != r.Header.ID {
			links = append(links, chainLink{record: r.Header, createdAt: r.CreatedAt})
		}
		if r.MessageID != "" {
			l := &links[len(links)-1]
			l.record.Delta = append(l.record.Delta, r.MessageID)
			l.bodies = append(l.bodies, r.Body)
		}
	}
	return links
}

// loadChain reads a checkpoint's chain in one query and verifies it.
func loadChain(ctx context.Context, tx conversationRows, id string) (conversation.Checkpoint, []conversation.Message, error) {
	rows, err := tx.CheckpointChain(ctx, id)
	if err != nil {
		return conversation.Checkpoint{}, nil, err
	}
	links := groupChain(rows)
	if len(links) == 0 {
		return conversation.Checkpoint{}, nil, ports.ErrNotFound
	}
	chain := make([]conversation.Checkpoint, len(links))
	byID := make(map[string]conversation.Message)
	for i, l := range links {
		if chain[i], err = conversation.RehydrateCheckpoint(l.record); err != nil {
			return conversation.Checkpoint{}, nil, err
		}
		for _, body := range l.bodies {
			if body == nil {
				continue // Materialize names the missing message
			}
			m, err := conversation.DecodeMessage(body)
			if err != nil {
				return conversation.Checkpoint{}, nil, err
			}
			byID[m.ID()] = m
		}
	}
	msgs, err := conversation.Materialize(chain, byID)
	if err != nil {
		return conversation.Checkpoint{}, nil, err
	}
	return chain[len(chain)-1], msgs, nil
}

// applyPlan gathers the facts for plan inside the locked transaction,
// decides, and executes the decision. The caller has locked conv and checked
// ownership of runID.
func applyPlan(ctx context.Context, tx planRows, conv ConversationRow, plan conversation.Plan, runID string, now time.Time) (conversation.Decision, error) {
	base := plan.Base()
	known, err := tx.ExistingCheckpoints(ctx, conv.ID, []string{base.ID()})
	if err != nil {
		return conversation.Decision{}, err
	}
	if len(known) == 0 {
		return conversation.Decision{}, fmt.Errorf("base checkpoint %q: %w", base.ID(), ports.ErrNotFound)
	}
	facts := conversation.Facts{HeadID: conv.HeadID}
	if facts.ExistingCheckpoints, err = tx.ExistingCheckpoints(ctx, conv.ID, plan.CandidateIDs()); err != nil {
		return conversation.Decision{}, err
	}
	bodies, err := tx.StoredMessages(ctx, conv.ID, plan.MessageIDs(), plan.RuntimeEventIDs())
	if err != nil {
		return conversation.Decision{}, err
	}
	var stored []string
	for _, b := range bodies {
		m, err := conversation.DecodeMessage(b)
		if err != nil {
			return conversation.Decision{}, err
		}
		facts.StoredMessages = append(facts.StoredMessages, m)
		stored = append(stored, m.ID())
	}
	// Only a stored message can be held by the base; asking for those alone
	// skips the chain walk on the usual append of new messages.
	if len(stored) > 0 {
		if facts.BaseHolds, err = tx.ChainHolds(ctx, base.ID(), stored); err != nil {
			return conversation.Decision{}, err
		}
	}
	d, err := plan.Decide(facts)
	if err != nil {
		return conversation.Decision{}, err
	}
	switch d.Outcome {
	case conversation.Create:
		if err := insertMessages(ctx, tx, conv.ID, d.NewMessages, now); err != nil {
			return conversation.Decision{}, err
		}
		if err := insertCheckpoint(ctx, tx, d.Checkpoint.Record(), now); err != nil {
			return conversation.Decision{}, err
		}
		fallthrough
	case conversation.MoveHead:
		if err := tx.SetConversationHead(ctx, conv.ID, d.Checkpoint.ID(), now); err != nil {
			return conversation.Decision{}, err
		}
		if runID != "" {
			if err := tx.SetRunHead(ctx, runID, d.Checkpoint.ID(), now); err != nil {
				return conversation.Decision{}, err
			}
		}
	}
	return d, nil
}

// insertMessages stores new messages with the blobs their images name; a
// missing blob fails the foreign key and so the whole write.
func insertMessages(ctx context.Context, tx conversationRows, convID string, msgs []conversation.Message, now time.Time) error {
	for _, m := range msgs {
		if err := tx.InsertMessage(ctx, convID, m, now); err != nil {
			return err
		}
		for _, id := range imageBlobs(m) {
			raw, err := parseBlobID(id)
			if err != nil {
				return fmt.Errorf("message %q image blob: %w", m.ID(), ports.ErrNotFound)
			}
			if err := tx.InsertMessageBlob(ctx, convID, m.ID(), raw); err != nil {
				return fmt.Errorf("message %q image blob %s: %w", m.ID(), id, err)
			}
		}
	}
	return nil
}
