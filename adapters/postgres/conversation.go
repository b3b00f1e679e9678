package postgres

import (
	"context"
	"database/sql"
	"time"

	"keygate/adapters/relstore"
	"keygate/domain/conversation"
	"keygate/gen/sqlc/pgdb"
)

func (t tx) GetConversation(ctx context.Context, id string) (relstore.ConversationRow, error) {
	row, err := t.q.GetConversation(ctx, id)
	return conversationFromRow(row), interpretError(ctx, err)
}

// LockConversation reads the row FOR UPDATE: writes to one conversation
// queue on the row lock until the holder commits.
func (t tx) LockConversation(ctx context.Context, id string) (relstore.ConversationRow, error) {
	row, err := t.q.LockConversation(ctx, id)
	return conversationFromRow(row), interpretError(ctx, err)
}

func (t tx) InsertConversation(ctx context.Context, id, rootID string, now time.Time) error {
	err := t.q.InsertConversation(ctx, pgdb.InsertConversationParams{ID: id, RootCheckpointID: rootID, CreatedAt: now})
	return interpretError(ctx, err)
}

func (t tx) SetConversationHead(ctx context.Context, id, headID string, now time.Time) error {
	err := t.q.SetConversationHead(ctx, pgdb.SetConversationHeadParams{ID: id, HeadCheckpointID: headID, UpdatedAt: now})
	return interpretError(ctx, err)
}

func (t tx) InsertCheckpointHeader(ctx context.Context, rec conversation.CheckpointRecord, now time.Time) error {
	err := t.q.InsertCheckpoint(ctx, pgdb.InsertCheckpointParams{
		ID: rec.ID, ConversationID: rec.ConversationID, ParentID: nullString(rec.ParentID),
		Length: int64(rec.Length), Digest: rec.Digest[:], CreatedAt: now,
	})
	return interpretError(ctx, err)
}

func (t tx) InsertCheckpointMessage(ctx context.Context, rec conversation.CheckpointRecord, ordinal int, messageID string) error {
	err := t.q.InsertCheckpointMessage(ctx, pgdb.InsertCheckpointMessageParams{
		CheckpointID: rec.ID, Ordinal: int64(ordinal), ConversationID: rec.ConversationID, MessageID: messageID,
	})
	return interpretError(ctx, err)
}

func (t tx) GetCheckpointHeader(ctx context.Context, id string) (conversation.CheckpointRecord, error) {
	r, err := t.q.GetCheckpoint(ctx, id)
	return checkpointFromRow(r.ID, r.ConversationID, r.ParentID.String, r.Length, r.Digest), interpretError(ctx, err)
}

func (t tx) CheckpointDelta(ctx context.Context, id string) ([]string, error) {
	delta, err := t.q.CheckpointDelta(ctx, id)
	return delta, interpretError(ctx, err)
}

func (t tx) CheckpointChain(ctx context.Context, id string) ([]relstore.ChainRow, error) {
	rows, err := t.q.CheckpointChain(ctx, id)
	out := make([]relstore.ChainRow, len(rows))
	for i, r := range rows {
		out[i] = relstore.ChainRow{
			Header:    checkpointFromRow(r.ID, r.ConversationID, r.ParentID.String, r.Length, r.Digest),
			MessageID: r.MessageID.String, Body: r.Body,
		}
	}
	return out, interpretError(ctx, err)
}

func (t tx) ExistingCheckpoints(ctx context.Context, conversationID string, ids []string) ([]string, error) {
	found, err := t.q.ExistingCheckpoints(ctx, pgdb.ExistingCheckpointsParams{ConversationID: conversationID, Ids: ids})
	return found, interpretError(ctx, err)
}

func (t tx) StoredMessages(ctx context.Context, conversationID string, ids, eventIDs []string) ([][]byte, error) {
	bodies, err := t.q.StoredMessages(ctx, pgdb.StoredMessagesParams{ConversationID: conversationID, Ids: ids, EventIds: eventIDs})
	return bodies, interpretError(ctx, err)
}

func (t tx) ChainHolds(ctx context.Context, checkpointID string, ids []string) ([]string, error) {
	held, err := t.q.ChainHolds(ctx, pgdb.ChainHoldsParams{CheckpointID: checkpointID, Ids: ids})
	return held, interpretError(ctx, err)
}

func (t tx) InsertMessage(ctx context.Context, conversationID string, m conversation.Message, now time.Time) error {
	err := t.q.InsertMessage(ctx, pgdb.InsertMessageParams{
		ConversationID: conversationID, ID: m.ID(), RuntimeEventID: nullString(m.RuntimeEventID()),
		Body: m.Encode(), CreatedAt: now,
	})
	return interpretError(ctx, err)
}

func (t tx) InsertMessageBlob(ctx context.Context, conversationID, messageID string, blobID []byte) error {
	err := t.q.InsertMessageBlob(ctx, pgdb.InsertMessageBlobParams{ConversationID: conversationID, MessageID: messageID, BlobID: blobID})
	return interpretError(ctx, err)
}

func (t tx) CheckpointStorage(ctx context.Context, conversationID string) (relstore.CheckpointStorage, error) {
	r, err := t.q.CheckpointStorage(ctx, conversationID)
	return relstore.CheckpointStorage{
		Checkpoints: r.Checkpoints, HeaderBytes: r.HeaderBytes, DeltaRows: r.DeltaRows,
		DeltaBytes: r.DeltaBytes, FullCopyRows: r.FullCopyRows,
	}, interpretError(ctx, err)
}

func conversationFromRow(r pgdb.Conversation) relstore.ConversationRow {
	return relstore.ConversationRow{ID: r.ID, RootID: r.RootCheckpointID, HeadID: r.HeadCheckpointID, ActiveRunID: r.ActiveRunID.String}
}

// checkpointFromRow builds the header of a stored checkpoint; the caller
// adds the delta.
func checkpointFromRow(id, conversationID, parentID string, length int64, digest []byte) conversation.CheckpointRecord {
	rec := conversation.CheckpointRecord{ID: id, ConversationID: conversationID, ParentID: parentID, Length: int(length)}
	copy(rec.Digest[:], digest)
	return rec
}

func nullString(s string) sql.NullString { return sql.NullString{String: s, Valid: s != ""} }
