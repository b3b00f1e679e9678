package relstore

import (
	"context"
	"fmt"
	"time"

	"keygate/ports"
)

// ModelConfigs implements ports.ModelConfigStore.
type ModelConfigs struct{ s *Store }

var _ ports.ModelConfigStore = ModelConfigs{}

// ModelConfigs implements ports.ModelConfigStore. The list is served from
// the store's cache while it holds one (configcache.go).
func (m ModelConfigs) ModelConfigs(ctx context.Context) ([]ports.ModelConfig, error) {
	list, _, err := m.all(ctx)
	if err != nil {
		return nil, fmt.Errorf("list model configs: %w", err)
	}
	return cloneConfigs(list), nil
}

// ModelConfig implements ports.ModelConfigStore, from the cached list like
// ModelConfigs.
func (m ModelConfigs) ModelConfig(ctx context.Context, id string) (ports.ModelConfig, error) {
	if !m.s.configs.serving() {
		// Nothing to fill: one row is cheaper than the list.
		var out ports.ModelConfig
		err := m.s.engine.Read(ctx, func(tx Tx) error {
			var err error
			out, err = tx.GetModelConfig(ctx, id)
			return err
		})
		if err != nil {
			return ports.ModelConfig{}, fmt.Errorf("read model config %q: %w", id, err)
		}
		return out, nil
	}
	list, byID, err := m.all(ctx)
	if err != nil {
		return ports.ModelConfig{}, fmt.Errorf("read model config %q: %w", id, err)
	}
	i, ok := byID[id]
	if !ok {
		return ports.ModelConfig{}, fmt.Errorf("read model config %q: %w", id, ports.ErrNotFound)
	}
	return cloneConfig(list[i]), nil
}

// all returns every configuration and their positions by id, shared with
// the cache: callers copy what they hand out.
func (m ModelConfigs) all(ctx context.Context) ([]ports.ModelConfig, map[string]int, error) {
	if err := ctx.Err(); err != nil {
		return nil, nil, err
	}
	now := time.Now()
	c := m.s.configs
	list, byID, gen, ok := cached(c, &c.models, now)
	if ok {
		return list, byID, nil
	}
	err := m.s.engine.Read(ctx, func(tx Tx) error {
		var err error
		list, err = tx.ListModelConfigs(ctx)
		return err
	})
	if err != nil {
		return nil, nil, err
	}
	byID = keep(c, &c.models, gen, list, func(m ports.ModelConfig) string { return m.ID }, cloneConfig, now)
	return list, byID, nil
}

// PutModelConfig implements ports.ModelConfigStore.
func (m ModelConfigs) PutModelConfig(ctx context.Context, cfg ports.ModelConfig) error {
	err := m.s.engine.Write(ctx, func(tx Tx) error { return tx.UpsertModelConfig(ctx, cfg, m.s.now()) })
	if err != nil {
		return fmt.Errorf("put model config %q: %w", cfg.ID, err)
	}
	return nil
}

// DeleteModelConfig implements ports.ModelConfigStore.
func (m ModelConfigs) DeleteModelConfig(ctx context.Context, id string) error {
	err := m.s.engine.Write(ctx, func(tx Tx) error {
		ok, err := tx.DeleteModelConfig(ctx, id)
		if err == nil && !ok {
			err = ports.ErrNotFound
		}
		return err
	})
	if err != nil {
		return fmt.Errorf("delete model config %q: %w", id, err)
	}
	return nil
}
