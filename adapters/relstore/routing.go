package relstore

import (
	"context"
	"fmt"
	"time"

	"keygate/domain/routing"
	"keygate/ports"
)

// routingRows are the rows of the gateway's routing state: health,
// affinity, aliases and their targets. Alias rows carry no targets;
// ListAliasTargets fills them in.
type routingRows interface {
	GetRouteHealth(ctx context.Context, subjects []string) (map[string]routing.Health, error)
	RecordRouteFailure(ctx context.Context, subject string, f routing.Failure, now time.Time) (routing.Health, error)
	RecordRouteSuccess(ctx context.Context, subject string, at time.Time) error
	GetRouteAffinity(ctx context.Context, conversationID, routeID string) (string, error)
	SetRouteAffinity(ctx context.Context, conversationID, routeID, targetID string, at time.Time) error
	UpsertAlias(ctx context.Context, a ports.Alias, now time.Time) error
	GetAlias(ctx context.Context, id string) (ports.Alias, error)
	ListAliases(ctx context.Context) ([]ports.Alias, error)
	// DeleteAlias returns false when there was nothing to delete.
	DeleteAlias(ctx context.Context, id string) (bool, error)
	ListAliasTargets(ctx context.Context, aliasID string) ([]ports.AliasTarget, error)
	ListAllAliasTargets(ctx context.Context) (map[string][]ports.AliasTarget, error)
	DeleteAliasTargets(ctx context.Context, aliasID string) error
	// InsertAliasTarget stores t at position (0 first) of aliasID's list.
	InsertAliasTarget(ctx context.Context, aliasID string, position int, t ports.AliasTarget) error
}

// Routing implements ports.RouteHealth, ports.RouteAffinity and
// ports.AliasStore.
type Routing struct{ s *Store }

var (
	_ ports.RouteHealth   = Routing{}
	_ ports.RouteAffinity = Routing{}
	_ ports.AliasStore    = Routing{}
)

// Routing returns the routing state: health, affinity and aliases.
func (s *Store) Routing() Routing { return Routing{s} }

// Health implements ports.RouteHealth.
func (r Routing) Health(ctx context.Context, subjects []string) (map[string]routing.Health, error) {
	out := map[string]routing.Health{}
	if len(subjects) == 0 {
		return out, ctx.Err()
	}
	err := r.s.engine.Read(ctx, func(tx Tx) error {
		var err error
		out, err = tx.GetRouteHealth(ctx, subjects)
		return err
	})
	if err != nil {
		return nil, fmt.Errorf("read route health: %w", err)
	}
	return out, nil
}

// RecordFailure implements ports.RouteHealth.
func (r Routing) RecordFailure(ctx context.Context, subject string, f routing.Failure) (routing.Health, error) {
	var h routing.Health
	err := r.s.engine.Write(ctx, func(tx Tx) error {
		var err error
		h, err = tx.RecordRouteFailure(ctx, subject, f, r.s.now())
		return err
	})
	if err != nil {
		return routing.Health{}, fmt.Errorf("record failure of %s: %w", subject, err)
	}
	return h, nil
}

// RecordSuccess implements ports.RouteHealth.
func (r Routing) RecordSuccess(ctx context.Context, subject string, at time.Time) error {
	if err := r.s.engine.Write(ctx, func(tx Tx) error { return tx.RecordRouteSuccess(ctx, subject, at.UTC()) }); err != nil {
		return fmt.Errorf("record success of %s: %w", subject, err)
	}
	return nil
}

// Affinity implements ports.RouteAffinity.
func (r Routing) Affinity(ctx context.Context, conversationID, routeID string) (string, error) {
	var target string
	err := r.s.engine.Read(ctx, func(tx Tx) error {
		var err error
		target, err = tx.GetRouteAffinity(ctx, conversationID, routeID)
		return err
	})
	if err != nil {
		return "", fmt.Errorf("read affinity of %s on %s: %w", conversationID, routeID, err)
	}
	return target, nil
}

// SetAffinity implements ports.RouteAffinity.
func (r Routing) SetAffinity(ctx context.Context, conversationID, routeID, targetID string, at time.Time) error {
	err := r.s.engine.Write(ctx, func(tx Tx) error {
		return tx.SetRouteAffinity(ctx, conversationID, routeID, targetID, at.UTC())
	})
	if err != nil {
		return fmt.Errorf("set affinity of %s on %s: %w", conversationID, routeID, err)
	}
	return nil
}

// Aliases implements ports.AliasStore.
func (r Routing) Aliases(ctx context.Context) ([]ports.Alias, error) {
	var out []ports.Alias
	err := r.s.engine.Read(ctx, func(tx Tx) error {
		var err error
		if out, err = tx.ListAliases(ctx); err != nil {
			return err
		}
		targets, err := tx.ListAllAliasTargets(ctx)
		for i := range out {
			out[i].Targets = targets[out[i].ID]
		}
		return err
	})
	if err != nil {
		return nil, fmt.Errorf("list aliases: %w", err)
	}
	return out, nil
}

// Alias implements ports.AliasStore.
func (r Routing) Alias(ctx context.Context, id string) (ports.Alias, error) {
	var out ports.Alias
	err := r.s.engine.Read(ctx, func(tx Tx) error {
		var err error
		if out, err = tx.GetAlias(ctx, id); err != nil {
			return err
		}
		out.Targets, err = tx.ListAliasTargets(ctx, id)
		return err
	})
	if err != nil {
		return ports.Alias{}, fmt.Errorf("read alias %q: %w", id, err)
	}
	return out, nil
}

// PutAlias implements ports.AliasStore.
func (r Routing) PutAlias(ctx context.Context, a ports.Alias) error {
	err := r.s.engine.Write(ctx, func(tx Tx) error {
		if err := tx.UpsertAlias(ctx, a, r.s.now()); err != nil {
			return err
		}
		if err := tx.DeleteAliasTargets(ctx, a.ID); err != nil {
			return err
		}
		for i, t := range a.Targets {
			if err := tx.InsertAliasTarget(ctx, a.ID, i, t); err != nil {
				return err
			}
		}
		return nil
	})
	if err != nil {
		return fmt.Errorf("put alias %q: %w", a.ID, err)
	}
	return nil
}

// DeleteAlias implements ports.AliasStore.
func (r Routing) DeleteAlias(ctx context.Context, id string) error {
	err := r.s.engine.Write(ctx, func(tx Tx) error {
		if err := tx.DeleteAliasTargets(ctx, id); err != nil {
			return err
		}
		ok, err := tx.DeleteAlias(ctx, id)
		if err == nil && !ok {
			err = ports.ErrNotFound
		}
		return err
	})
	if err != nil {
		return fmt.Errorf("delete alias %q: %w", id, err)
	}
	return nil
}
