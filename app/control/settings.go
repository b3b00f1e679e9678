package control

import (
	"context"
	"encoding/json"
	"errors"
	"fmt"
	"math"
	"sync/atomic"

	"keygate/ports"
)

// Setting names in the SettingStore.
const (
	settingDetailed  = "llm_detailed_logging"
	settingRetention = "detailed_retention_hours"
	settingPrices    = "model_prices"
	settingConvKeep  = "conversation_retention_days"
)

// MaxConversationRetentionDays bounds the conversation retention setting
// (ten years).
const MaxConversationRetentionDays = 3650

// Price is the price of an upstream model in USD per million tokens.
type Price struct {
	ModelID    string  `json:"model_id"`
	Input      float64 `json:"input"`
	Output     float64 `json:"output"`
	CacheRead  float64 `json:"cache_read"`
	CacheWrite float64 `json:"cache_write"`
}

// ServiceSettings are the settings the console edits.
type ServiceSettings struct {
	// Detailed records request bodies and raw response streams.
	Detailed bool
	// RetentionHours deletes detailed records, and the prompts the cache
	// insight keeps of every call, older than this; 0 keeps them.
	RetentionHours int
	Prices         []Price
	// ConversationRetentionDays erases conversations idle longer than this
	// (messages, checkpoints, images, their calls' details and prompts;
	// ports.ConversationEraser); 0 keeps them.
	ConversationRetentionDays int
}

// Settings reads and writes service settings. It caches the detailed-mode
// flag and the prices so that provider calls and budgets can read them per
// call without a store query.
type Settings struct {
	store    ports.SettingStore
	detailed atomic.Bool
	prices   atomic.Pointer[map[string]Price]
}

// NewSettings returns the settings use cases; call Load once at start.
func NewSettings(store ports.SettingStore) *Settings {
	return &Settings{store: store}
}

// Load reads the settings from the store and refreshes the cached flag.
func (s *Settings) Load(ctx context.Context) (ServiceSettings, error) {
	var out ServiceSettings
	for name, into := range map[string]any{settingDetailed: &out.Detailed,
		settingRetention: &out.RetentionHours, settingPrices: &out.Prices, settingConvKeep: &out.ConversationRetentionDays} {
		raw, err := s.store.Setting(ctx, name)
		if errors.Is(err, ports.ErrNotFound) {
			continue
		}
		if err != nil {
			return ServiceSettings{}, fmt.Errorf("read setting %s: %w", name, err)
		}
		if err := json.Unmarshal(raw, into); err != nil {
			return ServiceSettings{}, fmt.Errorf("decode setting %s: %w", name, err)
		}
	}
	if out.Prices == nil {
		out.Prices = []Price{}
	}
	s.detailed.Store(out.Detailed)
	prices := make(map[string]Price, len(out.Prices))
	for _, p := range out.Prices {
		prices[p.ModelID] = p
	}
	s.prices.Store(&prices)
	return out, nil
}

// Update validates and stores every setting.
func (s *Settings) Update(ctx context.Context, in ServiceSettings) (ServiceSettings, error) {
	if in.RetentionHours < 0 || in.RetentionHours > MaxRetentionHours {
		return ServiceSettings{}, invalid("detailed_retention_hours",
			fmt.Sprintf("use 0 to keep detailed records, or a number of hours up to %d", MaxRetentionHours))
	}
	if in.ConversationRetentionDays < 0 || in.ConversationRetentionDays > MaxConversationRetentionDays {
		return ServiceSettings{}, invalid("conversation_retention_days",
			fmt.Sprintf("use 0 to keep conversations, or a number of days up to %d", MaxConversationRetentionDays))
	}
	if len(in.Prices) > MaxPrices {
		return ServiceSettings{}, invalid("prices", fmt.Sprintf("at most %d prices", MaxPrices))
	}
	seen := map[string]bool{}
	for _, p := range in.Prices {
		if p.ModelID == "" || seen[p.ModelID] {
			return ServiceSettings{}, invalid("prices", "give each price a model id, once")
		}
		if err := checkText("prices.model_id", p.ModelID, MaxModelID); err != nil {
			return ServiceSettings{}, err
		}
		for _, v := range []float64{p.Input, p.Output, p.CacheRead, p.CacheWrite} {
			if v < 0 || math.IsNaN(v) || math.IsInf(v, 0) {
				return ServiceSettings{}, invalid("prices", "prices must be finite numbers, not negative")
			}
		}
		seen[p.ModelID] = true
	}
	for name, v := range map[string]any{settingDetailed: in.Detailed,
		settingRetention: in.RetentionHours, settingPrices: in.Prices, settingConvKeep: in.ConversationRetentionDays} {
		raw, err := json.Marshal(v)
		if err != nil {
			return ServiceSettings{}, fmt.Errorf("encode setting %s: %w", name, err)
		}
		if err := s.store.PutSetting(ctx, name, raw); err != nil {
			return ServiceSettings{}, fmt.Errorf("store setting %s: %w", name, err)
		}
	}
	return s.Load(ctx)
}

// Detailed reports the detailed-mode flag as of the last Load or Update.
// It fits provider.Options.Detailed, which is read once per call.
func (s *Settings) Detailed() bool { return s.detailed.Load() }

// PriceOf returns the price of an upstream model as of the last Load or
// Update; ok is false for a model without a price (or before any Load).
func (s *Settings) PriceOf(modelID string) (p Price, ok bool) {
	if m := s.prices.Load(); m != nil {
		p, ok = (*m)[modelID]
	}
	return p, ok
}
