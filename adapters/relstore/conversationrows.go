package relstore

import (
	"database/sql"
	"time"

	"keygate/domain/conversation"
	"keygate/ports"
)

// ConversationColumns is a conversations row (sqlc's Conversation), T the
// engine's [Stamp].
type ConversationColumns[T Stamp] struct {
	ID               string
	RootCheckpointID string
	HeadCheckpointID string
	ActiveRunID      sql.NullString
	CreatedAt        T
	UpdatedAt        T
}

// Row maps the row.
func (r ConversationColumns[T]) Row() ConversationRow {
	return ConversationRow{ID: r.ID, RootID: r.RootCheckpointID, HeadID: r.HeadCheckpointID, ActiveRunID: r.ActiveRunID.String}
}

// CheckpointColumns is a checkpoints row (sqlc's Checkpoint and
// InsertCheckpointParams).
type CheckpointColumns[T Stamp] struct {
	ID             string
	ConversationID string
	ParentID       sql.NullString
	Length         int64
	Digest         []byte
	CreatedAt      T
}

// CheckpointOf is how a checkpoint's header is stored.
func CheckpointOf[T Stamp](rec conversation.CheckpointRecord, now time.Time) CheckpointColumns[T] {
	return CheckpointColumns[T]{
		ID: rec.ID, ConversationID: rec.ConversationID, ParentID: NullString(rec.ParentID),
		Length: int64(rec.Length), Digest: rec.Digest[:], CreatedAt: StampOf[T](now),
	}
}

// Header maps the row: a checkpoint without its delta.
func (r CheckpointColumns[T]) Header() conversation.CheckpointRecord {
	return checkpointHeader(r.ID, r.ConversationID, r.ParentID, r.Length, r.Digest)
}

func checkpointHeader(id, conversationID string, parentID sql.NullString, length int64, digest []byte) conversation.CheckpointRecord {
	rec := conversation.CheckpointRecord{ID: id, ConversationID: conversationID, ParentID: parentID.String, Length: int(length)}
	copy(rec.Digest[:], digest)
	return rec
}

// ChainColumns is a row of the CheckpointChain query (sqlc's
// CheckpointChainRow).
type ChainColumns struct {
	ID             string
	ConversationID string
	ParentID       sql.NullString
	Length         int64
	Digest         []byte
	Ordinal        sql.NullInt64
	MessageID      sql.NullString
	Body           []byte
}

// Row maps the row.
func (r ChainColumns) Row() ChainRow {
	return ChainRow{
		Header:    checkpointHeader(r.ID, r.ConversationID, r.ParentID, r.Length, r.Digest),
		MessageID: r.MessageID.String, Body: r.Body,
	}
}

// CheckpointListColumns is a row of the ConversationCheckpoints query
// (sqlc's ConversationCheckpointsRow).
type CheckpointListColumns[T Stamp] struct {
	ID             string
	ConversationID string
	ParentID       sql.NullString
	Length         int64
	Digest         []byte
	CreatedAt      T
	MessageID      sql.NullString
}

// Row maps the row.
func (r CheckpointListColumns[T]) Row() ChainRow {
	return ChainRow{
		Header:    checkpointHeader(r.ID, r.ConversationID, r.ParentID, r.Length, r.Digest),
		CreatedAt: TimeOf(r.CreatedAt), MessageID: r.MessageID.String,
	}
}

// MessageColumns are the arguments of InsertMessage (sqlc's
// InsertMessageParams).
type MessageColumns[T Stamp] struct {
	ConversationID string
	ID             string
	RuntimeEventID sql.NullString
	Body           []byte
	CreatedAt      T
}

// MessageOf is how a message of a conversation is stored.
func MessageOf[T Stamp](conversationID string, m conversation.Message, now time.Time) MessageColumns[T] {
	return MessageColumns[T]{
		ConversationID: conversationID, ID: m.ID(), RuntimeEventID: NullString(m.RuntimeEventID()),
		Body: m.Encode(), CreatedAt: StampOf[T](now),
	}
}

// ConversationListColumns is a row of the ListConversations query (sqlc's
// ListConversationsRow).
type ConversationListColumns[T Stamp] struct {
	ID               string
	HeadCheckpointID string
	CreatedAt        T
	UpdatedAt        T
	OwnerID          string
	LastModel        string
	Turns            int64
	FirstTurn        []byte
}

// Summary maps the row.
func (r ConversationListColumns[T]) Summary() ports.ConversationSummary {
	return ports.ConversationSummary{
		ID: r.ID, HeadCheckpointID: r.HeadCheckpointID, CreatedAt: TimeOf(r.CreatedAt), UpdatedAt: TimeOf(r.UpdatedAt),
		Title: ConversationTitle(r.FirstTurn), UserID: r.OwnerID, Model: r.LastModel, Turns: int(r.Turns),
	}
}

// ConversationPageArgs are the arguments of ListConversations (sqlc's
// ListConversationsParams).
type ConversationPageArgs[T Stamp] struct {
	AfterUpdated T
	AfterID      string
	MaxRows      int64
}

// ConversationPageOf is the page q asks for.
func ConversationPageOf[T Stamp](q PageQuery) ConversationPageArgs[T] {
	return ConversationPageArgs[T]{AfterUpdated: StampOf[T](q.AfterUpdated), AfterID: q.AfterID, MaxRows: int64(q.Limit)}
}

// CallPageArgs are the arguments of ListCallRecords (sqlc's
// ListCallRecordsParams).
type CallPageArgs[T Stamp] struct {
	ModelID        string
	Status         string
	ConversationID string
	UserID         string
	Kind           string
	Since          T
	Until          T
	AfterStarted   T
	AfterCallID    string
	MaxRows        int64
}

// CallPageOf is the page q asks for.
func CallPageOf[T Stamp](q CallListQuery) CallPageArgs[T] {
	return CallPageArgs[T]{
		ModelID: q.ModelID, Status: q.Status, ConversationID: q.ConversationID, UserID: q.UserID, Kind: q.Kind,
		Since: StampOf[T](q.Since), Until: StampOf[T](q.Until), AfterStarted: StampOf[T](q.AfterStarted), AfterCallID: q.AfterCallID,
		MaxRows: int64(q.Limit),
	}
}

// PromptColumns is the row of the GetPrompt query (sqlc's GetPromptRow).
type PromptColumns[T Stamp] struct {
	Kind      string
	Body      []byte
	CreatedAt T
}

// Row maps the row.
func (r PromptColumns[T]) Row() PromptRow {
	return PromptRow{Kind: r.Kind, Body: r.Body, At: TimeOf(r.CreatedAt)}
}
