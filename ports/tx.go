package ports

import "context"

// Stores are the store ports bound to one transaction.
type Stores struct {
	Conversations  ConversationStore
	Anchors        InputAnchorStore
	Runs           RunStore
	ToolRounds     ToolRoundStore
	Blobs          BlobStore
	Settings       SettingStore
	ModelConfigs   ModelConfigStore
	Calls          CallRecorder
	ContextAnchors ContextAnchorStore
	Prompts        PromptStore
}

// Transactor runs several store operations atomically. Transactions are
// closures: the application never sees Begin, Commit or Rollback.
type Transactor interface {
	// WithinTx calls fn once with stores bound to a new transaction and
	// commits when fn returns nil. If fn returns an error or panics, or ctx
	// is cancelled before the commit, everything fn wrote is rolled back and
	// the error (ctx.Err() wrapped for a cancellation) is returned; a panic
	// is re-raised after the rollback. fn must use only the stores it is
	// given and must not call WithinTx again.
	WithinTx(ctx context.Context, fn func(ctx context.Context, s Stores) error) error
}
