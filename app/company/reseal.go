package company

import (
	"context"
	"fmt"

	"keygate/ports"
)

// Reseal opens every stored provider key with box and seals it again, so
// that after a key rotation every key is sealed under box's primary key.
// box must still open values sealed under the old key. Configurations
// without a key are left alone. It returns how many keys it re-sealed; on
// an error the configurations before it are re-sealed and the rest are
// untouched, and running it again is safe.
func Reseal(ctx context.Context, configs ports.ModelConfigStore, box ports.SecretBox) (int, error) {
	all, err := configs.ModelConfigs(ctx)
	if err != nil {
		return 0, fmt.Errorf("reseal keys: %w", err)
	}
	n := 0
	for _, cfg := range all {
		if len(cfg.SealedAPIKey) == 0 {
			continue
		}
		plain, err := box.Open(cfg.SealedAPIKey)
		if err != nil {
			return n, fmt.Errorf("reseal key of model %q: %w", cfg.ID, err)
		}
		cfg.SealedAPIKey, err = box.Seal(plain)
		clear(plain)
		if err != nil {
			return n, fmt.Errorf("reseal key of model %q: %w", cfg.ID, err)
		}
		if err := configs.PutModelConfig(ctx, cfg); err != nil {
			return n, fmt.Errorf("reseal key of model %q: %w", cfg.ID, err)
		}
		n++
	}
	return n, nil
}
