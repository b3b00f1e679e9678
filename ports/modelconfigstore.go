package ports

import (
	"context"
	"encoding/json"
	"time"

	"keygate/domain/llm"
)

// ModelConfigStore holds the provider and model configurations published to
// Cursor's model picker. The API key is stored only as the opaque
// ciphertext a secret box produced: the store never sees a plaintext key and
// does not know how it was sealed.
//
// All methods return ctx.Err() (wrapped) on a cancelled context and then
// have written nothing.
type ModelConfigStore interface {
	// ModelConfigs returns every configuration ordered by SortOrder, then ID.
	ModelConfigs(ctx context.Context) ([]ModelConfig, error)

	// ModelConfig returns one configuration, or ErrNotFound.
	ModelConfig(ctx context.Context, id string) (ModelConfig, error)

	// PutModelConfig creates or replaces the configuration with cfg.ID. A
	// replacement keeps the original CreatedAt; UpdatedAt is set by the
	// store.
	PutModelConfig(ctx context.Context, cfg ModelConfig) error

	// DeleteModelConfig removes a configuration, or returns ErrNotFound.
	DeleteModelConfig(ctx context.Context, id string) error
}

// ModelConfig is one configured upstream model.
type ModelConfig struct {
	// ID is the model hash under which Cursor sees the model.
	ID          string
	SortOrder   int
	DisplayName string
	// GroupName is for display only; empty means none.
	GroupName string
	// Enabled publishes the model to Cursor.
	Enabled      bool
	ProviderKind llm.ProviderKind
	BaseURL      string
	// UseFullURL sends requests to BaseURL verbatim instead of appending
	// the protocol's standard path.
	UseFullURL bool
	// SealedAPIKey is the API key as ciphertext; opaque to the store.
	SealedAPIKey []byte
	ModelID      string
	Tooltip      string
	// ReasoningEffort is "" (provider default) or low/medium/high/xhigh/max.
	ReasoningEffort     string
	ContextWindowTokens int64
	MaxOutputTokens     int64
	// ExtraParams is a JSON object merged into request bodies; nil for none.
	ExtraParams json.RawMessage
	// CustomHeaders is a JSON object of string headers; nil for none.
	CustomHeaders  json.RawMessage
	SupportsImages bool
	SupportsTools  bool
	CreatedAt      time.Time
	UpdatedAt      time.Time
}
