package ports

import (
	"context"
	"time"
)

// ModelMapping puts a model id of Cursor's own (one the client sends for
// its built-in models, subagents or "auto": "default", "composer-1",
// "gpt-5"…; any string) on a Keygate model or alias: a turn the client pins
// to CursorModel runs on Target.
type ModelMapping struct {
	// CursorModel is the id as the client sends it; the mapping's key.
	CursorModel string
	// Target is the model configuration or alias id the turn runs on.
	Target string
	// CreatedAt and UpdatedAt are set by the store.
	CreatedAt time.Time
	UpdatedAt time.Time
}

// ModelMappingStore holds the mappings of Cursor's model ids.
//
// Every method returns ctx.Err() (wrapped) on a cancelled context and then
// has written nothing.
type ModelMappingStore interface {
	// ModelMappings returns every mapping ordered by CursorModel.
	ModelMappings(ctx context.Context) ([]ModelMapping, error)
	// ModelMapping returns the mapping of cursorModel, or ErrNotFound.
	ModelMapping(ctx context.Context, cursorModel string) (ModelMapping, error)
	// PutModelMapping creates or replaces the mapping of m.CursorModel
	// (both fields required, an error otherwise); a replacement keeps
	// CreatedAt.
	PutModelMapping(ctx context.Context, m ModelMapping) error
	// DeleteModelMapping removes the mapping of cursorModel, or returns
	// ErrNotFound.
	DeleteModelMapping(ctx context.Context, cursorModel string) error
}
