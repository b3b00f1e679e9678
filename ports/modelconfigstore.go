package ports

import (
	"context"
	"encoding/json"
	"time"

	"keygate/domain/llm"
)

// ModelConfigStore holds the model configurations published to Cursor's
// model picker. Each names the provider it is called at (ProviderStore);
// the store joins that provider's protocol, base URL and headers into the
// configurations it reads.
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
	// store. The provider's fields (ProviderKind, BaseURL, UseFullURL,
	// CustomHeaders) are not written: they belong to the provider.
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
	Enabled bool
	// ProviderID names the provider (ProviderStore) the model is called at.
	ProviderID string
	// ProviderKind, BaseURL, UseFullURL and CustomHeaders are the
	// provider's, joined in when the store reads the configuration; zero
	// when ProviderID names no stored provider.
	ProviderKind llm.ProviderKind
	BaseURL      string
	// UseFullURL sends requests to BaseURL verbatim instead of appending
	// the protocol's standard path.
	UseFullURL bool
	// CustomHeaders are the provider's ClearHeaders (headers an earlier
	// Keygate stored in clear, nil once sealed); the sealed headers are
	// the provider's alone.
	CustomHeaders json.RawMessage
	ModelID       string
	Tooltip       string
	// ReasoningEffort is "" (provider default) or low/medium/high/xhigh/max.
	ReasoningEffort     string
	ContextWindowTokens int64
	MaxOutputTokens     int64
	// ExtraParams is a JSON object merged into request bodies; nil for none.
	ExtraParams    json.RawMessage
	SupportsImages bool
	SupportsTools  bool
	// RequestsPerMinute and TokensPerMinute limit the calls made to this
	// model, as a route's target, summed over every replica; 0 is no limit.
	RequestsPerMinute int64
	TokensPerMinute   int64
	CreatedAt         time.Time
	UpdatedAt         time.Time
}
