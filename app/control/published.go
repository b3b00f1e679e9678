package control

import (
	"context"
	"errors"
	"fmt"

	"keygate/ports"
)

// Published are the models Cursor's picker offers: the enabled ones, in
// publishing order (the first is the default).
func (m *Models) Published(ctx context.Context) ([]ports.ModelConfig, error) {
	cfgs, err := m.o.Store.ModelConfigs(ctx)
	if err != nil {
		return nil, fmt.Errorf("list published models: %w", err)
	}
	out := make([]ports.ModelConfig, 0, len(cfgs))
	for _, c := range cfgs {
		if c.Enabled {
			out = append(out, c)
		}
	}
	return out, nil
}

// Serves reports whether Keygate serves the turns of a model id: an
// enabled configured model. A store error counts as served, so that the
// run layer reports the error rather than the turn going to Cursor under
// a model id Cursor does not know.
func (m *Models) Serves(ctx context.Context, id string) bool {
	c, err := m.o.Store.ModelConfig(ctx, id)
	if errors.Is(err, ports.ErrNotFound) {
		return false
	}
	return err != nil || c.Enabled
}
