package relstore

import (
	"encoding/json"
	"time"

	"keygate/domain/llm"
	"keygate/domain/routing"
	"keygate/ports"
)

// ProviderColumns is a providers row (sqlc's Provider), T the engine's
// [Stamp].
type ProviderColumns[T Stamp] struct {
	ID            string
	Name          string
	ProviderKind  string
	BaseUrl       string
	UseFullUrl    bool
	CustomHeaders string
	Region        string
	KeyStrategy   string
	CoolDownMs    int64
	CreatedAt     T
	UpdatedAt     T
	SealedHeaders []byte
	Cloud         string
}

// Provider maps the row.
func (r ProviderColumns[T]) Provider() ports.Provider {
	return ports.Provider{
		ID: r.ID, Name: r.Name, Kind: llm.ProviderKind(r.ProviderKind), BaseURL: r.BaseUrl, UseFullURL: r.UseFullUrl,
		ClearHeaders: NullToNil([]byte(r.CustomHeaders)), SealedHeaders: EmptyToNil(r.SealedHeaders), Region: r.Region,
		KeyStrategy: routing.ParseKeyStrategy(r.KeyStrategy), CoolDown: time.Duration(r.CoolDownMs) * time.Millisecond,
		CreatedAt: TimeOf(r.CreatedAt), UpdatedAt: TimeOf(r.UpdatedAt), Cloud: cloudOf(r.Cloud),
	}
}

// cloudOf reads the cloud column: ” (or a value an older Keygate cannot
// read) is no cloud settings.
func cloudOf(s string) ports.CloudSettings {
	var c ports.CloudSettings
	if s != "" {
		_ = json.Unmarshal([]byte(s), &c)
	}
	return c
}

// cloudColumn is how settings are stored: ” for none.
func cloudColumn(c ports.CloudSettings) string {
	if c.IsZero() {
		return ""
	}
	b, _ := json.Marshal(c) // a struct of strings always marshals
	return string(b)
}

// UpsertProviderArgs are the arguments of UpsertProvider (sqlc's
// UpsertProviderParams).
type UpsertProviderArgs[T Stamp] struct {
	ID            string
	Name          string
	ProviderKind  string
	BaseUrl       string
	UseFullUrl    bool
	CustomHeaders string
	Region        string
	KeyStrategy   string
	CoolDownMs    int64
	CreatedAt     T
	SealedHeaders []byte
	Cloud         string
}

// UpsertProviderOf is how p is stored.
func UpsertProviderOf[T Stamp](p ports.Provider, now time.Time) UpsertProviderArgs[T] {
	return UpsertProviderArgs[T]{
		ID: p.ID, Name: p.Name, ProviderKind: string(p.Kind), BaseUrl: p.BaseURL, UseFullUrl: p.UseFullURL,
		CustomHeaders: string(JSONOrNull(p.ClearHeaders)), SealedHeaders: NonNil(p.SealedHeaders), Region: p.Region,
		KeyStrategy: NameOf(p.KeyStrategy), CoolDownMs: p.CoolDown.Milliseconds(), CreatedAt: StampOf[T](now),
		Cloud: cloudColumn(p.Cloud),
	}
}

// ProviderKeyColumns is a provider_keys row (sqlc's ProviderKey).
type ProviderKeyColumns[T Stamp] struct {
	ID             string
	ProviderID     string
	Position       int64
	SealedKey      []byte
	Weight         int64
	Enabled        bool
	DisabledReason string
	CreatedAt      T
	UpdatedAt      T
}

// Key maps the row.
func (r ProviderKeyColumns[T]) Key() ports.ProviderKey {
	return ports.ProviderKey{
		ID: r.ID, Position: int(r.Position), Sealed: r.SealedKey, Weight: int(r.Weight), Enabled: r.Enabled,
		DisabledReason: r.DisabledReason, CreatedAt: TimeOf(r.CreatedAt), UpdatedAt: TimeOf(r.UpdatedAt),
	}
}

// KeysByProvider groups the rows by provider, in row order.
func KeysByProvider[T Stamp](rows []ProviderKeyColumns[T]) map[string][]ports.ProviderKey {
	out := map[string][]ports.ProviderKey{}
	for _, r := range rows {
		out[r.ProviderID] = append(out[r.ProviderID], r.Key())
	}
	return out
}

// UpsertProviderKeyArgs are the arguments of UpsertProviderKey (sqlc's
// UpsertProviderKeyParams).
type UpsertProviderKeyArgs[T Stamp] struct {
	ID             string
	ProviderID     string
	Position       int64
	SealedKey      []byte
	Weight         int64
	Enabled        bool
	DisabledReason string
	CreatedAt      T
}

// UpsertProviderKeyOf is how k, a key of provider providerID, is stored.
func UpsertProviderKeyOf[T Stamp](providerID string, k ports.ProviderKey, now time.Time) UpsertProviderKeyArgs[T] {
	return UpsertProviderKeyArgs[T]{
		ID: k.ID, ProviderID: providerID, Position: int64(k.Position), SealedKey: NonNil(k.Sealed),
		Weight: int64(k.Weight), Enabled: k.Enabled, DisabledReason: k.DisabledReason, CreatedAt: StampOf[T](now),
	}
}

// ModelConfigColumns is a row of the GetModelConfig and ListModelConfigs
// queries: a model_configs row with its provider's columns.
type ModelConfigColumns[T Stamp] struct {
	ID                  string
	SortOrder           int64
	DisplayName         string
	GroupName           string
	Enabled             bool
	ProviderID          string
	ModelID             string
	Tooltip             string
	ReasoningEffort     string
	ContextWindowTokens int64
	MaxOutputTokens     int64
	ExtraParams         string
	SupportsImages      bool
	SupportsTools       bool
	RequestsPerMinute   int64
	TokensPerMinute     int64
	CreatedAt           T
	UpdatedAt           T
	ProviderKind        string
	BaseUrl             string
	UseFullUrl          bool
	CustomHeaders       string
}

// Config maps the row.
func (r ModelConfigColumns[T]) Config() ports.ModelConfig {
	return ports.ModelConfig{
		ID: r.ID, SortOrder: int(r.SortOrder), DisplayName: r.DisplayName, GroupName: r.GroupName,
		Enabled: r.Enabled, ProviderID: r.ProviderID, ProviderKind: llm.ProviderKind(r.ProviderKind), BaseURL: r.BaseUrl,
		UseFullURL: r.UseFullUrl, CustomHeaders: NullToNil([]byte(r.CustomHeaders)), ModelID: r.ModelID,
		Tooltip: r.Tooltip, ReasoningEffort: r.ReasoningEffort, ContextWindowTokens: r.ContextWindowTokens,
		MaxOutputTokens: r.MaxOutputTokens, ExtraParams: NullToNil([]byte(r.ExtraParams)),
		SupportsImages: r.SupportsImages, SupportsTools: r.SupportsTools,
		RequestsPerMinute: r.RequestsPerMinute, TokensPerMinute: r.TokensPerMinute,
		CreatedAt: TimeOf(r.CreatedAt), UpdatedAt: TimeOf(r.UpdatedAt),
	}
}

// UpsertModelConfigArgs are the arguments of UpsertModelConfig (sqlc's
// UpsertModelConfigParams).
type UpsertModelConfigArgs[T Stamp] struct {
	ID                  string
	SortOrder           int64
	DisplayName         string
	GroupName           string
	Enabled             bool
	ProviderID          string
	ModelID             string
	Tooltip             string
	ReasoningEffort     string
	ContextWindowTokens int64
	MaxOutputTokens     int64
	ExtraParams         string
	SupportsImages      bool
	SupportsTools       bool
	RequestsPerMinute   int64
	TokensPerMinute     int64
	CreatedAt           T
}

// UpsertModelConfigOf is how c is stored.
func UpsertModelConfigOf[T Stamp](c ports.ModelConfig, now time.Time) UpsertModelConfigArgs[T] {
	return UpsertModelConfigArgs[T]{
		ID: c.ID, SortOrder: int64(c.SortOrder), DisplayName: c.DisplayName, GroupName: c.GroupName,
		Enabled: c.Enabled, ProviderID: c.ProviderID, ModelID: c.ModelID, Tooltip: c.Tooltip,
		ReasoningEffort: c.ReasoningEffort, ContextWindowTokens: c.ContextWindowTokens,
		MaxOutputTokens: c.MaxOutputTokens, ExtraParams: string(JSONOrNull(c.ExtraParams)),
		SupportsImages: c.SupportsImages, SupportsTools: c.SupportsTools,
		RequestsPerMinute: c.RequestsPerMinute, TokensPerMinute: c.TokensPerMinute, CreatedAt: StampOf[T](now),
	}
}
