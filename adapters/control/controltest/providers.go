package controltest

import (
	"context"
	"fmt"
	"slices"
	"strings"
	"time"

	"keygate/domain/routing"
	"keygate/ports"
)

// Providers implements ports.ProviderStore.
func (s *Store) Providers(ctx context.Context) ([]ports.Provider, error) {
	unlock, err := s.lock(ctx)
	if err != nil {
		return nil, err
	}
	defer unlock()
	out := make([]ports.Provider, 0, len(s.provs))
	for _, p := range s.provs {
		out = append(out, cloneProvider(p))
	}
	slices.SortFunc(out, func(a, b ports.Provider) int {
		if c := strings.Compare(a.Name, b.Name); c != 0 {
			return c
		}
		return strings.Compare(a.ID, b.ID)
	})
	return out, nil
}

// Provider implements ports.ProviderStore.
func (s *Store) Provider(ctx context.Context, id string) (ports.Provider, error) {
	unlock, err := s.lock(ctx)
	if err != nil {
		return ports.Provider{}, err
	}
	defer unlock()
	p, ok := s.provs[id]
	if !ok {
		return p, fmt.Errorf("provider %s: %w", id, ports.ErrNotFound)
	}
	return cloneProvider(p), nil
}

// PutProvider implements ports.ProviderStore.
func (s *Store) PutProvider(ctx context.Context, p ports.Provider) error {
	unlock, err := s.lock(ctx)
	if err != nil {
		return err
	}
	defer unlock()
	for id, other := range s.provs {
		for _, k := range other.Keys {
			if id != p.ID && slices.ContainsFunc(p.Keys, func(n ports.ProviderKey) bool { return n.ID == k.ID }) {
				return fmt.Errorf("key %s: %w", k.ID, ports.ErrConflict)
			}
		}
	}
	now := s.now().UTC()
	p = cloneProvider(p)
	p.CreatedAt, p.UpdatedAt = now, now
	old, had := s.provs[p.ID]
	if had {
		p.CreatedAt = old.CreatedAt
	}
	for i := range p.Keys {
		p.Keys[i].CreatedAt, p.Keys[i].UpdatedAt = now, now
		for _, o := range old.Keys {
			if o.ID == p.Keys[i].ID {
				p.Keys[i].CreatedAt = o.CreatedAt
			}
		}
	}
	sortKeys(p.Keys)
	s.provs[p.ID] = p
	return nil
}

// SetKeyEnabled implements ports.ProviderStore.
func (s *Store) SetKeyEnabled(ctx context.Context, providerID, keyID string, enabled bool, reason string) error {
	unlock, err := s.lock(ctx)
	if err != nil {
		return err
	}
	defer unlock()
	p, ok := s.provs[providerID]
	i := slices.IndexFunc(p.Keys, func(k ports.ProviderKey) bool { return k.ID == keyID })
	if !ok || i < 0 {
		return fmt.Errorf("key %s of provider %s: %w", keyID, providerID, ports.ErrNotFound)
	}
	p.Keys[i].Enabled, p.Keys[i].DisabledReason, p.Keys[i].UpdatedAt = enabled, reason, s.now().UTC()
	return nil
}

// DeleteProvider implements ports.ProviderStore.
func (s *Store) DeleteProvider(ctx context.Context, id string) error {
	unlock, err := s.lock(ctx)
	if err != nil {
		return err
	}
	defer unlock()
	if _, ok := s.provs[id]; !ok {
		return fmt.Errorf("provider %s: %w", id, ports.ErrNotFound)
	}
	for _, c := range s.configs {
		if c.ProviderID == id {
			return fmt.Errorf("provider %s: %w", id, ports.ErrConflict)
		}
	}
	delete(s.provs, id)
	return nil
}

func cloneProvider(p ports.Provider) ports.Provider {
	p.Keys = slices.Clone(p.Keys)
	return p
}

func sortKeys(keys []ports.ProviderKey) {
	slices.SortStableFunc(keys, func(a, b ports.ProviderKey) int {
		if a.Position != b.Position {
			return a.Position - b.Position
		}
		return strings.Compare(a.ID, b.ID)
	})
}

// Health implements ports.RouteHealth.
func (s *Store) Health(ctx context.Context, subjects []string) (map[string]routing.Health, error) {
	unlock, err := s.lock(ctx)
	if err != nil {
		return nil, err
	}
	defer unlock()
	out := map[string]routing.Health{}
	for _, sub := range subjects {
		if h, ok := s.health[sub]; ok {
			out[sub] = h
		}
	}
	return out, nil
}

// RecordFailure implements ports.RouteHealth.
func (s *Store) RecordFailure(ctx context.Context, subject string, f routing.Failure) (routing.Health, error) {
	unlock, err := s.lock(ctx)
	if err != nil {
		return routing.Health{}, err
	}
	defer unlock()
	if s.health == nil {
		s.health = map[string]routing.Health{}
	}
	h := s.health[subject].Record(f)
	s.health[subject] = h
	return h, nil
}

// RecordSuccess implements ports.RouteHealth.
func (s *Store) RecordSuccess(ctx context.Context, subject string, _ time.Time) error {
	unlock, err := s.lock(ctx)
	if err != nil {
		return err
	}
	defer unlock()
	if h, ok := s.health[subject]; ok {
		s.health[subject] = h.Recovered()
	}
	return nil
}
