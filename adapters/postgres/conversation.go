package postgres

import (
	"context"
	"time"

	"keygate/adapters/relstore"
	"keygate/domain/conversation"
	"keygate/gen/sqlc/pgdb"
)

// Conversations, checkpoints and messages: relstore builds and maps the
// rows (conversationrows.go), this file binds them to the generated
// queries.

func (t tx) GetConversation(ctx context.Context, id string) (relstore.ConversationRow, error) {
	row, err := t.q.GetConversation(ctx, id)
	return relstore.ConversationColumns[time.Time](row).Row(), interpretError(ctx, err)
}

// LockConversation reads the row FOR UPDATE: writes to one conversation
// queue on the row lock until the holder commits.
func (t tx) LockConversation(ctx context.Context, id string) (relstore.ConversationRow, error) {
	row, err := t.q.LockConversation(ctx, id)
	return relstore.ConversationColumns[time.Time](row).Row(), interpretError(ctx, err)
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
	return interpretError(ctx, t.q.InsertCheckpoint(ctx, pgdb.InsertCheckpointParams(relstore.CheckpointOf[time.Time](rec, now))))
}

func (t tx) InsertCheckpointMessage(ctx context.Context, rec conversation.CheckpointRecord, ordinal int, messageID string) error {
	err := t.q.InsertCheckpointMessage(ctx, pgdb.InsertCheckpointMessageParams{
		CheckpointID: rec.ID, Ordinal: int64(ordinal), ConversationID: rec.ConversationID, MessageID: messageID,
	})
	return interpretError(ctx, err)
}

func (t tx) GetCheckpointHeader(ctx context.Context, id string) (conversation.CheckpointRecord, error) {
	row, err := t.q.GetCheckpoint(ctx, id)
	return relstore.CheckpointColumns[time.Time](row).Header(), interpretError(ctx, err)
}

func (t tx) CheckpointDelta(ctx context.Context, id string) ([]string, error) {
	delta, err := t.q.CheckpointDelta(ctx, id)
	return delta, interpretError(ctx, err)
}

func (t tx) CheckpointChain(ctx context.Context, id string) ([]relstore.ChainRow, error) {
	rows, err := t.q.CheckpointChain(ctx, id)
	return relstore.Pick(rows, func(r pgdb.CheckpointChainRow) relstore.ChainRow { return relstore.ChainColumns(r).Row() }), interpretError(ctx, err)
}

func (t tx) ExistingCheckpoints(ctx context.Context, conversationID string, ids []string) ([]string, error) {
	found, err := t.q.ExistingCheckpoints(ctx, pgdb.ExistingCheckpointsParams{ConversationID: conversationID, Ids: ids})
	return found, interpretError(ctx, err)
}

// StoredMessages and ChainHolds bind the lists as PostgreSQL arrays.
func (t tx) StoredMessages(ctx context.Context, conversationID string, ids, eventIDs []string) ([][]byte, error) {
	bodies, err := t.q.StoredMessages(ctx, pgdb.StoredMessagesParams{ConversationID: conversationID, Ids: ids, EventIds: eventIDs})
	return bodies, interpretError(ctx, err)
}

func (t tx) ChainHolds(ctx context.Context, checkpointID string, ids []string) ([]string, error) {
	held, err := t.q.ChainHolds(ctx, pgdb.ChainHoldsParams{CheckpointID: checkpointID, Ids: ids})
	return held, interpretError(ctx, err)
}

func (t tx) InsertMessage(ctx context.Context, conversationID string, m conversation.Message, now time.Time) error {
	return interpretError(ctx, t.q.InsertMessage(ctx, pgdb.InsertMessageParams(relstore.MessageOf[time.Time](conversationID, m, now))))
}

func (t tx) InsertMessageBlob(ctx context.Context, conversationID, messageID string, blobID []byte) error {
	err := t.q.InsertMessageBlob(ctx, pgdb.InsertMessageBlobParams{ConversationID: conversationID, MessageID: messageID, BlobID: blobID})
	return interpretError(ctx, err)
}

func (t tx) CheckpointStorage(ctx context.Context, conversationID string) (relstore.CheckpointStorage, error) {
	row, err := t.q.CheckpointStorage(ctx, conversationID)
	return relstore.CheckpointStorage(row), interpretError(ctx, err)
}
