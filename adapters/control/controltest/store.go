package controltest

import (
	"context"
	"encoding/json"
	"fmt"
	"sort"
	"sync"
	"time"

	"keygate/domain/callrecord"
	"keygate/domain/routing"
	"keygate/ports"
)

// Store is an in-memory model config, setting and call record store.
type Store struct {
	mu       sync.Mutex
	now      func() time.Time
	configs  map[string]ports.ModelConfig
	provs    map[string]ports.Provider
	health   map[string]routing.Health
	aliases  map[string]ports.Alias
	settings map[string]json.RawMessage
	records  map[string]callrecord.Record
	requests map[string]callrecord.Request
	chunks   map[string][]callrecord.Chunk
}

var (
	_ ports.ModelConfigStore = (*Store)(nil)
	_ ports.ProviderStore    = (*Store)(nil)
	_ ports.RouteHealth      = (*Store)(nil)
	_ ports.AliasStore       = (*Store)(nil)
	_ ports.SettingStore     = (*Store)(nil)
	_ ports.CallRecorder     = (*Store)(nil)
	_ ports.CallRecordReader = (*Store)(nil)
	_ ports.CallLister       = (*Store)(nil)
	_ ports.DetailPurger     = (*Store)(nil)
)

// NewStore returns an empty store; now nil uses time.Now.
func NewStore(now func() time.Time) *Store {
	if now == nil {
		now = time.Now
	}
	return &Store{now: now, configs: map[string]ports.ModelConfig{}, provs: map[string]ports.Provider{}, settings: map[string]json.RawMessage{},
		records: map[string]callrecord.Record{}, requests: map[string]callrecord.Request{},
		chunks: map[string][]callrecord.Chunk{}}
}

func (s *Store) lock(ctx context.Context) (func(), error) {
	if err := ctx.Err(); err != nil {
		return nil, fmt.Errorf("memory store: %w", err)
	}
	s.mu.Lock()
	return s.mu.Unlock, nil
}

// ModelConfigs implements ports.ModelConfigStore.
func (s *Store) ModelConfigs(ctx context.Context) ([]ports.ModelConfig, error) {
	unlock, err := s.lock(ctx)
	if err != nil {
		return nil, err
	}
	defer unlock()
	out := make([]ports.ModelConfig, 0, len(s.configs))
	for _, c := range s.configs {
		out = append(out, s.joined(c))
	}
	sort.Slice(out, func(i, j int) bool {
		if out[i].SortOrder != out[j].SortOrder {
			return out[i].SortOrder < out[j].SortOrder
		}
		return out[i].ID < out[j].ID
	})
	return out, nil
}

// ModelConfig implements ports.ModelConfigStore.
func (s *Store) ModelConfig(ctx context.Context, id string) (ports.ModelConfig, error) {
	unlock, err := s.lock(ctx)
	if err != nil {
		return ports.ModelConfig{}, err
	}
	defer unlock()
	c, ok := s.configs[id]
	if !ok {
		return c, fmt.Errorf("model config %s: %w", id, ports.ErrNotFound)
	}
	return s.joined(c), nil
}

// joined is c with its provider's connection, as a store reads it.
func (s *Store) joined(c ports.ModelConfig) ports.ModelConfig {
	p := s.provs[c.ProviderID]
	c.ProviderKind, c.BaseURL, c.UseFullURL, c.CustomHeaders = p.Kind, p.BaseURL, p.UseFullURL, p.ClearHeaders
	return c
}

// PutModelConfig implements ports.ModelConfigStore.
func (s *Store) PutModelConfig(ctx context.Context, cfg ports.ModelConfig) error {
	unlock, err := s.lock(ctx)
	if err != nil {
		return err
	}
	defer unlock()
	now := s.now().UTC()
	cfg.CreatedAt, cfg.UpdatedAt = now, now
	if old, ok := s.configs[cfg.ID]; ok {
		cfg.CreatedAt = old.CreatedAt
	}
	cfg.ProviderKind, cfg.BaseURL, cfg.UseFullURL, cfg.CustomHeaders = "", "", false, nil
	s.configs[cfg.ID] = cfg
	return nil
}

// DeleteModelConfig implements ports.ModelConfigStore.
func (s *Store) DeleteModelConfig(ctx context.Context, id string) error {
	unlock, err := s.lock(ctx)
	if err != nil {
		return err
	}
	defer unlock()
	if _, ok := s.configs[id]; !ok {
		return fmt.Errorf("model config %s: %w", id, ports.ErrNotFound)
	}
	delete(s.configs, id)
	return nil
}

// Setting implements ports.SettingStore.
func (s *Store) Setting(ctx context.Context, name string) (json.RawMessage, error) {
	unlock, err := s.lock(ctx)
	if err != nil {
		return nil, err
	}
	defer unlock()
	v, ok := s.settings[name]
	if !ok {
		return nil, fmt.Errorf("setting %s: %w", name, ports.ErrNotFound)
	}
	return v, nil
}

// PutSetting implements ports.SettingStore.
func (s *Store) PutSetting(ctx context.Context, name string, value json.RawMessage) error {
	unlock, err := s.lock(ctx)
	if err != nil {
		return err
	}
	defer unlock()
	if !json.Valid(value) {
		return fmt.Errorf("setting %s: %w", name, ports.ErrInvalidSetting)
	}
	s.settings[name] = append(json.RawMessage(nil), value...)
	return nil
}

// DeleteSetting implements ports.SettingStore.
func (s *Store) DeleteSetting(ctx context.Context, name string) error {
	unlock, err := s.lock(ctx)
	if err != nil {
		return err
	}
	defer unlock()
	if _, ok := s.settings[name]; !ok {
		return fmt.Errorf("setting %s: %w", name, ports.ErrNotFound)
	}
	delete(s.settings, name)
	return nil
}
