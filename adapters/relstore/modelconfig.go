package relstore

import (
	"context"
	"fmt"

	"keygate/ports"
)

// ModelConfigs implements ports.ModelConfigStore.
type ModelConfigs struct{ s *Store }

var _ ports.ModelConfigStore = ModelConfigs{}

// ModelConfigs implements ports.ModelConfigStore.
func (m ModelConfigs) ModelConfigs(ctx context.Context) ([]ports.ModelConfig, error) {
	var out []ports.ModelConfig
	err := m.s.engine.Read(ctx, func(tx Tx) error {
		var err error
		out, err = tx.ListModelConfigs(ctx)
		return err
	})
	if err != nil {
		return nil, fmt.Errorf("list model configs: %w", err)
	}
	return out, nil
}

// ModelConfig implements ports.ModelConfigStore.
func (m ModelConfigs) ModelConfig(ctx context.Context, id string) (ports.ModelConfig, error) {
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
