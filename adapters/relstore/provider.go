package relstore

import (
	"context"
	"errors"
	"fmt"
	"time"

	"keygate/ports"
)

// providerRows are the provider and provider key rows. Rows carry a
// provider without its keys; ListProviderKeys fills them in.
type providerRows interface {
	UpsertProvider(ctx context.Context, p ports.Provider, now time.Time) error
	GetProvider(ctx context.Context, id string) (ports.Provider, error)
	ListProviders(ctx context.Context) ([]ports.Provider, error)
	// DeleteProvider returns false when there was nothing to delete.
	DeleteProvider(ctx context.Context, id string) (bool, error)
	CountProviderModels(ctx context.Context, id string) (int, error)
	// UpsertProviderKey creates or replaces a key of providerID; a key id
	// of another provider is left alone (see ProviderKeyOwner).
	UpsertProviderKey(ctx context.Context, providerID string, k ports.ProviderKey, now time.Time) error
	// ProviderKeyOwner returns the provider a key id belongs to, or
	// ErrNotFound.
	ProviderKeyOwner(ctx context.Context, keyID string) (string, error)
	ListProviderKeys(ctx context.Context, providerID string) ([]ports.ProviderKey, error)
	// ListAllProviderKeys returns every key with its provider's id.
	ListAllProviderKeys(ctx context.Context) (map[string][]ports.ProviderKey, error)
	DeleteProviderKey(ctx context.Context, keyID string) error
	// SetProviderKeyEnabled returns false when the provider has no such key.
	SetProviderKeyEnabled(ctx context.Context, providerID, keyID string, enabled bool, reason string, now time.Time) (bool, error)
}

// Providers implements ports.ProviderStore.
type Providers struct{ s *Store }

var _ ports.ProviderStore = Providers{}

// Providers returns the provider store.
func (s *Store) Providers() Providers { return Providers{s} }

// Providers implements ports.ProviderStore. The list is served from the
// store's cache while it holds one (configcache.go).
func (p Providers) Providers(ctx context.Context) ([]ports.Provider, error) {
	list, _, err := p.all(ctx)
	if err != nil {
		return nil, fmt.Errorf("list providers: %w", err)
	}
	return cloneProviders(list), nil
}

// Provider implements ports.ProviderStore, from the cached list like
// Providers.
func (p Providers) Provider(ctx context.Context, id string) (ports.Provider, error) {
	if !p.s.configs.serving() {
		// Nothing to fill: one provider is cheaper than the list.
		var out ports.Provider
		err := p.s.engine.Read(ctx, func(tx Tx) error {
			var err error
			if out, err = tx.GetProvider(ctx, id); err != nil {
				return err
			}
			out.Keys, err = tx.ListProviderKeys(ctx, id)
			return err
		})
		if err != nil {
			return ports.Provider{}, fmt.Errorf("read provider %q: %w", id, err)
		}
		return out, nil
	}
	list, byID, err := p.all(ctx)
	if err != nil {
		return ports.Provider{}, fmt.Errorf("read provider %q: %w", id, err)
	}
	i, ok := byID[id]
	if !ok {
		return ports.Provider{}, fmt.Errorf("read provider %q: %w", id, ports.ErrNotFound)
	}
	return cloneProvider(list[i]), nil
}

// all returns every provider with its keys and their positions by id,
// shared with the cache: callers copy what they hand out.
func (p Providers) all(ctx context.Context) ([]ports.Provider, map[string]int, error) {
	if err := ctx.Err(); err != nil {
		return nil, nil, err
	}
	now := time.Now()
	c := p.s.configs
	list, byID, gen, ok := cached(c, &c.providers, now)
	if ok {
		return list, byID, nil
	}
	err := p.s.engine.Read(ctx, func(tx Tx) error {
		var err error
		if list, err = tx.ListProviders(ctx); err != nil {
			return err
		}
		keys, err := tx.ListAllProviderKeys(ctx)
		for i := range list {
			list[i].Keys = keys[list[i].ID]
		}
		return err
	})
	if err != nil {
		return nil, nil, err
	}
	byID = keep(c, &c.providers, gen, list, func(p ports.Provider) string { return p.ID }, cloneProvider, now)
	return list, byID, nil
}

// PutProvider implements ports.ProviderStore.
func (p Providers) PutProvider(ctx context.Context, prov ports.Provider) error {
	now := p.s.now()
	err := p.s.engine.Write(ctx, func(tx Tx) error {
		if err := tx.UpsertProvider(ctx, prov, now); err != nil {
			return err
		}
		stored, err := tx.ListProviderKeys(ctx, prov.ID)
		if err != nil {
			return err
		}
		keep := make(map[string]bool, len(prov.Keys))
		for _, k := range prov.Keys {
			owner, err := tx.ProviderKeyOwner(ctx, k.ID)
			switch {
			case errors.Is(err, ports.ErrNotFound):
			case err != nil:
				return err
			case owner != prov.ID:
				return fmt.Errorf("key %q belongs to another provider: %w", k.ID, ports.ErrConflict)
			}
			if err := tx.UpsertProviderKey(ctx, prov.ID, k, now); err != nil {
				return err
			}
			keep[k.ID] = true
		}
		for _, k := range stored {
			if !keep[k.ID] {
				if err := tx.DeleteProviderKey(ctx, k.ID); err != nil {
					return err
				}
			}
		}
		return nil
	})
	if err != nil {
		return fmt.Errorf("put provider %q: %w", prov.ID, err)
	}
	return nil
}

// SetKeyEnabled implements ports.ProviderStore.
func (p Providers) SetKeyEnabled(ctx context.Context, providerID, keyID string, enabled bool, reason string) error {
	err := p.s.engine.Write(ctx, func(tx Tx) error {
		ok, err := tx.SetProviderKeyEnabled(ctx, providerID, keyID, enabled, reason, p.s.now())
		if err == nil && !ok {
			err = ports.ErrNotFound
		}
		return err
	})
	if err != nil {
		return fmt.Errorf("set key %q of provider %q enabled: %w", keyID, providerID, err)
	}
	return nil
}

// DeleteProvider implements ports.ProviderStore.
func (p Providers) DeleteProvider(ctx context.Context, id string) error {
	err := p.s.engine.Write(ctx, func(tx Tx) error {
		n, err := tx.CountProviderModels(ctx, id)
		if err != nil {
			return err
		}
		if n > 0 {
			return fmt.Errorf("%d model(s) use it: %w", n, ports.ErrConflict)
		}
		keys, err := tx.ListProviderKeys(ctx, id)
		if err != nil {
			return err
		}
		for _, k := range keys {
			if err := tx.DeleteProviderKey(ctx, k.ID); err != nil {
				return err
			}
		}
		ok, err := tx.DeleteProvider(ctx, id)
		if err == nil && !ok {
			err = ports.ErrNotFound
		}
		return err
	})
	if err != nil {
		return fmt.Errorf("delete provider %q: %w", id, err)
	}
	return nil
}
