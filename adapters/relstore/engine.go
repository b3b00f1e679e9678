package relstore

import (
	"context"
	"time"

	"keygate/domain/callrecord"
	"keygate/domain/conversation"
	"keygate/ports"
)

// Engine runs functions against one database. Both methods return ctx.Err()
// (wrapped) when ctx is cancelled and then call fn never or roll back.
type Engine interface {
	// Read calls fn with a consistent read view.
	Read(ctx context.Context, fn func(tx Tx) error) error
	// Write calls fn in a read-write transaction and commits when fn
	// returns nil. Writers to one conversation must be serialized by the
	// engine (SQLite: one writer; PostgreSQL: Tx.LockConversation).
	Write(ctx context.Context, fn func(tx Tx) error) error
}

// Tx is the set of row operations a store transaction offers: every
// family's (about a hundred methods in nineteen groups, one group a family
// of tables). It is that wide because one transaction spans families (a
// claim locks the conversation, inserts the run and cancels the one it
// replaces) and because each engine implements all of it once, as a thin
// binding of its generated queries: the rows themselves are built and
// mapped in this package (the *rows.go files), whatever the engine. Code
// here that works within one family takes that group alone (ownedRun takes
// runRows, loadChain conversationRows), so what it may touch is in its
// signature.
//
// Methods translate driver errors once: no rows → ports.ErrNotFound,
// unique violation → ports.ErrConflict, foreign-key violation →
// ports.ErrNotFound (a referenced row is missing), cancelled context →
// ctx.Err().
type Tx interface {
	conversationRows
	runRows
	toolRoundRows
	blobRows
	settingRows
	modelConfigRows
	providerRows
	routingRows
	rateRows
	callRecordRows
	consoleRows
	tokenRows
	membershipRows
	auditRows
	budgetRows
	ownerRows
	sessionRows
	fingerprintRows
	fateRows
	cloudUsageRows
	memoryRows
	modelMappingRows
	teamRows
	directoryRows
	serviceAccountRows
	budgetLimitRows
	eraseRows
}

// eraseRows delete a whole conversation (see ports.ConversationEraser):
// EraseConversationRows runs every deletion of one conversation in the
// caller's transaction and returns the image blob ids its messages named,
// which EraseBlobIfUnused then deletes where nothing else uses them.
type eraseRows interface {
	EraseConversationRows(ctx context.Context, conversationID string) ([][]byte, error)
	EraseBlobIfUnused(ctx context.Context, blobID []byte) error
	StaleConversations(ctx context.Context, cutoff time.Time, limit int32) ([]string, error)
}

// ConversationRow is the head pointer row of a conversation.
type ConversationRow struct {
	ID          string
	RootID      string
	HeadID      string
	ActiveRunID string
}

// ChainRow is one row of a chain query: a checkpoint header and, unless
// the checkpoint appends nothing, one of its delta messages with its body
// (nil where the message row is missing).
type ChainRow struct {
	Header    conversation.CheckpointRecord
	CreatedAt time.Time
	MessageID string
	Body      []byte
}

type conversationRows interface {
	GetConversation(ctx context.Context, id string) (ConversationRow, error)
	// LockConversation reads the row and, on engines with row locks, locks
	// it until the transaction ends.
	LockConversation(ctx context.Context, id string) (ConversationRow, error)
	InsertConversation(ctx context.Context, id, rootID string, now time.Time) error
	SetConversationHead(ctx context.Context, id, headID string, now time.Time) error
	// InsertCheckpointHeader and InsertCheckpointMessage do nothing for
	// rows that exist.
	InsertCheckpointHeader(ctx context.Context, rec conversation.CheckpointRecord, now time.Time) error
	InsertCheckpointMessage(ctx context.Context, rec conversation.CheckpointRecord, ordinal int, messageID string) error
	// GetCheckpointHeader returns a checkpoint without its delta.
	GetCheckpointHeader(ctx context.Context, id string) (conversation.CheckpointRecord, error)
	CheckpointDelta(ctx context.Context, id string) ([]string, error)
	// CheckpointChain returns the rows of the chain from the root to id,
	// root first, delta rows in ordinal order; empty when id is unknown.
	CheckpointChain(ctx context.Context, id string) ([]ChainRow, error)
	ExistingCheckpoints(ctx context.Context, conversationID string, ids []string) ([]string, error)
	StoredMessages(ctx context.Context, conversationID string, ids, eventIDs []string) ([][]byte, error)
	ChainHolds(ctx context.Context, checkpointID string, ids []string) ([]string, error)
	InsertMessage(ctx context.Context, conversationID string, m conversation.Message, now time.Time) error
	InsertMessageBlob(ctx context.Context, conversationID, messageID string, blobID []byte) error
	CheckpointStorage(ctx context.Context, conversationID string) (CheckpointStorage, error)
}

// planRows is what applying a conversation plan touches: the
// conversation's rows and the head of the run that owns it.
type planRows interface {
	conversationRows
	SetRunHead(ctx context.Context, runID, headID string, now time.Time) error
}

type runRows interface {
	InsertRun(ctx context.Context, c ports.RunClaim, now time.Time) error
	GetRun(ctx context.Context, id string) (ports.Run, error)
	LatestRunByCursorRequest(ctx context.Context, cursorRequestID string) (ports.Run, error)
	// OwnedRun returns the run only if it is running and active.
	OwnedRun(ctx context.Context, id string) (ports.Run, error)
	SetActiveRun(ctx context.Context, conversationID, runID string, now time.Time) error
	ClearActiveRun(ctx context.Context, conversationID, runID string, now time.Time) error
	CancelRun(ctx context.Context, runID string, now time.Time) error
	CancelRunningCalls(ctx context.Context, runID string, now time.Time) error
	SetRunHead(ctx context.Context, runID, headID string, now time.Time) error
	NextProviderCall(ctx context.Context, runID string, now time.Time) (int, error)
	// FinishRun returns false when the run was not running.
	FinishRun(ctx context.Context, runID string, end ports.RunEnd, now time.Time) (bool, error)
}

// ToolRoundRow is a stored tool round: its plan message's encoding plus
// where it belongs.
type ToolRoundRow struct {
	ID             string
	RunID          string
	ConversationID string
	BaseID         string
	Plan           []byte
}

type toolRoundRows interface {
	InsertToolRound(ctx context.Context, r ToolRoundRow, now time.Time) error
	GetToolRound(ctx context.Context, id string) (ToolRoundRow, error)
	// ToolRoundResults returns the completed call ids in completion order.
	ToolRoundResults(ctx context.Context, roundID string) ([]string, error)
	InsertToolRoundResult(ctx context.Context, roundID string, seq int, callID, checkpointID string, now time.Time) error
}

type blobRows interface {
	InsertBlob(ctx context.Context, id, data []byte, now time.Time) error
	GetBlob(ctx context.Context, id []byte) ([]byte, error)
	HasBlob(ctx context.Context, id []byte) (bool, error)
	InsertBlobRef(ctx context.Context, parent, child []byte) error
	BlobChildren(ctx context.Context, parent []byte) ([][]byte, error)
}

type settingRows interface {
	GetSetting(ctx context.Context, name string) ([]byte, error)
	PutSetting(ctx context.Context, name string, value []byte, now time.Time) error
	// DeleteSetting returns false when there was nothing to delete.
	DeleteSetting(ctx context.Context, name string) (bool, error)
}

type modelConfigRows interface {
	UpsertModelConfig(ctx context.Context, cfg ports.ModelConfig, now time.Time) error
	GetModelConfig(ctx context.Context, id string) (ports.ModelConfig, error)
	ListModelConfigs(ctx context.Context) ([]ports.ModelConfig, error)
	DeleteModelConfig(ctx context.Context, id string) (bool, error)
}

type callRecordRows interface {
	UpsertCallRecord(ctx context.Context, rec callrecord.Record) error
	GetCallRecord(ctx context.Context, callID string) (callrecord.Record, error)
	InsertCallRequest(ctx context.Context, callID string, req callrecord.Request) error
	GetCallRequest(ctx context.Context, callID string) (callrecord.Request, error)
	InsertCallChunk(ctx context.Context, callID string, c callrecord.Chunk) error
	CallChunks(ctx context.Context, callID string) ([]callrecord.Chunk, error)
}
