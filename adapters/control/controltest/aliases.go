package controltest

import (
	"context"
	"fmt"
	"slices"
	"strings"

	"keygate/ports"
)

// Aliases implements ports.AliasStore.
func (s *Store) Aliases(ctx context.Context) ([]ports.Alias, error) {
	unlock, err := s.lock(ctx)
	if err != nil {
		return nil, err
	}
	defer unlock()
	out := make([]ports.Alias, 0, len(s.aliases))
	for _, a := range s.aliases {
		a.Targets = slices.Clone(a.Targets)
		out = append(out, a)
	}
	slices.SortFunc(out, func(a, b ports.Alias) int {
		if a.SortOrder != b.SortOrder {
			return a.SortOrder - b.SortOrder
		}
		return strings.Compare(a.ID, b.ID)
	})
	return out, nil
}

// Alias implements ports.AliasStore.
func (s *Store) Alias(ctx context.Context, id string) (ports.Alias, error) {
	unlock, err := s.lock(ctx)
	if err != nil {
		return ports.Alias{}, err
	}
	defer unlock()
	a, ok := s.aliases[id]
	if !ok {
		return a, fmt.Errorf("alias %s: %w", id, ports.ErrNotFound)
	}
	a.Targets = slices.Clone(a.Targets)
	return a, nil
}

// PutAlias implements ports.AliasStore.
func (s *Store) PutAlias(ctx context.Context, a ports.Alias) error {
	unlock, err := s.lock(ctx)
	if err != nil {
		return err
	}
	defer unlock()
	if s.aliases == nil {
		s.aliases = map[string]ports.Alias{}
	}
	now := s.now().UTC()
	a.CreatedAt, a.UpdatedAt, a.Targets = now, now, slices.Clone(a.Targets)
	if old, ok := s.aliases[a.ID]; ok {
		a.CreatedAt = old.CreatedAt
	}
	s.aliases[a.ID] = a
	return nil
}

// DeleteAlias implements ports.AliasStore.
func (s *Store) DeleteAlias(ctx context.Context, id string) error {
	unlock, err := s.lock(ctx)
	if err != nil {
		return err
	}
	defer unlock()
	if _, ok := s.aliases[id]; !ok {
		return fmt.Errorf("alias %s: %w", id, ports.ErrNotFound)
	}
	delete(s.aliases, id)
	return nil
}
