package company

import (
	"context"
	"fmt"

	"keygate/ports"
)

// Reseal opens every stored provider key and sealed header set with box
// and seals it again, so that after a key rotation every key is sealed
// under box's primary key.
// box must still open values sealed under the old key. It returns how many
// keys it re-sealed. Each provider is written whole, so on an error the
// providers before it are re-sealed and the rest are untouched, and
// running it again is safe.
func Reseal(ctx context.Context, providers ports.ProviderStore, box ports.SecretBox) (int, error) {
	all, err := providers.Providers(ctx)
	if err != nil {
		return 0, fmt.Errorf("reseal keys: %w", err)
	}
	n := 0
	for _, p := range all {
		if len(p.Keys) == 0 && len(p.SealedHeaders) == 0 {
			continue
		}
		if len(p.SealedHeaders) > 0 {
			plain, err := box.Open(p.SealedHeaders)
			if err != nil {
				return n, fmt.Errorf("reseal headers of provider %q: %w", p.ID, err)
			}
			p.SealedHeaders, err = box.Seal(plain)
			clear(plain)
			if err != nil {
				return n, fmt.Errorf("reseal headers of provider %q: %w", p.ID, err)
			}
		}
		for i, k := range p.Keys {
			plain, err := box.Open(k.Sealed)
			if err != nil {
				return n, fmt.Errorf("reseal key %q of provider %q: %w", k.ID, p.ID, err)
			}
			p.Keys[i].Sealed, err = box.Seal(plain)
			clear(plain)
			if err != nil {
				return n, fmt.Errorf("reseal key %q of provider %q: %w", k.ID, p.ID, err)
			}
		}
		if err := providers.PutProvider(ctx, p); err != nil {
			return n, fmt.Errorf("reseal keys of provider %q: %w", p.ID, err)
		}
		n += len(p.Keys)
	}
	return n, nil
}
