package sqlite

import (
	"context"
	"encoding/json"
	"time"

	"keygate/adapters/relstore"
	"keygate/domain/conversation"
	"keygate/gen/sqlc/sqlitedb"
)

// Conversations, checkpoints and messages: relstore builds and maps the
// rows (conversationrows.go), this file binds them to the generated
// queries.

func (t tx) GetConversation(ctx context.Context, id string) (relstore.ConversationRow, error) {
	row, err := t.q.GetConversation(ctx, id)
	return relstore.ConversationColumns[int64](row).Row(), interpretError(ctx, err)
}

// LockConversation reads the row; the writer connection already holds
// SQLite's single write lock, which serializes every write.
func (t tx) LockConversation(ctx context.Context, id string) (relstore.ConversationRow, error) {
	row, err := t.q.LockConversation(ctx, id)
	return relstore.ConversationColumns[int64](row).Row(), interpretError(ctx, err)
}

func (t tx) InsertConversation(ctx context.Context, id, rootID string, now time.Time) error {
	err := t.q.InsertConversation(ctx, sqlitedb.InsertConversationParams{ID: id, RootCheckpointID: rootID, CreatedAt: ms(now)})
	return interpretError(ctx, err)
}

func (t tx) SetConversationHead(ctx context.Context, id, headID string, now time.Time) error {
	err := t.q.SetConversationHead(ctx, sqlitedb.SetConversationHeadParams{ID: id, HeadCheckpointID: headID, UpdatedAt: ms(now)})
	return interpretError(ctx, err)
}

func (t tx) InsertCheckpointHeader(ctx context.Context, rec conversation.CheckpointRecord, now time.Time) error {
	return interpretError(ctx, t.q.InsertCheckpoint(ctx, sqlitedb.InsertCheckpointParams(relstore.CheckpointOf[int64](rec, now))))
}

func (t tx) InsertCheckpointMessage(ctx context.Context, rec conversation.CheckpointRecord, ordinal int, messageID string) error {
	err := t.q.InsertCheckpointMessage(ctx, sqlitedb.InsertCheckpointMessageParams{
		CheckpointID: rec.ID, Ordinal: int64(ordinal), ConversationID: rec.ConversationID, MessageID: messageID,
	})
	return interpretError(ctx, err)
}

func (t tx) GetCheckpointHeader(ctx context.Context, id string) (conversation.CheckpointRecord, error) {
	row, err := t.q.GetCheckpoint(ctx, id)
	return relstore.CheckpointColumns[int64](row).Header(), interpretError(ctx, err)
}

func (t tx) CheckpointDelta(ctx context.Context, id string) ([]string, error) {
	delta, err := t.q.CheckpointDelta(ctx, id)
	return delta, interpretError(ctx, err)
}

func (t tx) CheckpointChain(ctx context.Context, id string) ([]relstore.ChainRow, error) {
	rows, err := t.q.CheckpointChain(ctx, id)
	return relstore.Pick(rows, func(r sqlitedb.CheckpointChainRow) relstore.ChainRow { return relstore.ChainColumns(r).Row() }), interpretError(ctx, err)
}

func (t tx) ExistingCheckpoints(ctx context.Context, conversationID string, ids []string) ([]string, error) {
	found, err := t.q.ExistingCheckpoints(ctx, sqlitedb.ExistingCheckpointsParams{ConversationID: conversationID, IdsJson: jsonList(ids)})
	return found, interpretError(ctx, err)
}

// StoredMessages and ChainHolds differ by dialect: SQLite binds a list
// as a JSON array (jsonList); an absent event id matches nothing.
func (t tx) StoredMessages(ctx context.Context, conversationID string, ids, eventIDs []string) ([][]byte, error) {
	events := make([]string, 0, len(eventIDs))
	for _, id := range eventIDs {
		if id != "" {
			events = append(events, id)
		}
	}
	bodies, err := t.q.StoredMessages(ctx, sqlitedb.StoredMessagesParams{ConversationID: conversationID, JsonEach: jsonList(ids), JsonEach_2: jsonList(events)})
	return bodies, interpretError(ctx, err)
}

// jsonList binds a list of strings as the JSON array the queries read
// with json_each: one prepared statement serves every length, where
// sqlc.slice builds and prepares its statement again at each call.
func jsonList(ids []string) string {
	if len(ids) == 0 {
		return "[]"
	}
	b, _ := json.Marshal(ids) // a []string always marshals
	return string(b)
}

func (t tx) ChainHolds(ctx context.Context, checkpointID string, ids []string) ([]string, error) {
	held, err := t.q.ChainHolds(ctx, sqlitedb.ChainHoldsParams{CheckpointID: checkpointID, IdsJson: jsonList(ids)})
	return held, interpretError(ctx, err)
}

func (t tx) InsertMessage(ctx context.Context, conversationID string, m conversation.Message, now time.Time) error {
	return interpretError(ctx, t.q.InsertMessage(ctx, sqlitedb.InsertMessageParams(relstore.MessageOf[int64](conversationID, m, now))))
}

func (t tx) InsertMessageBlob(ctx context.Context, conversationID, messageID string, blobID []byte) error {
	err := t.q.InsertMessageBlob(ctx, sqlitedb.InsertMessageBlobParams{ConversationID: conversationID, MessageID: messageID, BlobID: blobID})
	return interpretError(ctx, err)
}

func (t tx) CheckpointStorage(ctx context.Context, conversationID string) (relstore.CheckpointStorage, error) {
	row, err := t.q.CheckpointStorage(ctx, conversationID)
	return relstore.CheckpointStorage(row), interpretError(ctx, err)
}
