package control

import (
	"context"
	"errors"
	"fmt"

	"keygate/domain/routing"
	"keygate/ports"
)

// Catalog is what the router and the Cursor path read of the models: the
// route a picker id stands for, each target with its key pool, and the
// endpoint a routed turn starts from. It opens keys for the router, one
// per attempt, and never for anything else. It is safe for concurrent use.
type Catalog struct {
	cfg     configs
	seal    sealing
	aliases ports.AliasStore
	// mappings put Cursor's model ids on Keygate models; nil for none.
	mappings ports.ModelMappingStore
}

// CatalogOptions are the dependencies of [Catalog].
type CatalogOptions struct {
	Models    ports.ModelConfigStore
	Providers ports.ProviderStore
	// Aliases holds the aliases; nil for none.
	Aliases ports.AliasStore
	// Secrets opens the keys, one per attempt.
	Secrets ports.SecretBox
	// Protocols derive each target's request URL.
	Protocols ports.ProviderProtocols
	// Mappings put Cursor's model ids on Keygate models or aliases; nil
	// for none.
	Mappings ports.ModelMappingStore
}

// NewCatalog returns the catalog over o's stores, secret box and
// protocols.
func NewCatalog(o CatalogOptions) *Catalog {
	return &Catalog{cfg: configs{models: o.Models, providers: o.Providers}, aliases: o.Aliases, mappings: o.Mappings,
		seal: sealing{secrets: o.Secrets, protocols: o.Protocols}}
}

// Route returns what id stands for: a model as its own only target, or an
// alias's targets; a Cursor model id mapped onto one of them, that one's
// route under the Cursor id (so a call record names both the mapping, as
// its route, and the Keygate model, as its target). An unknown id is
// ports.ErrNotFound.
func (c *Catalog) Route(ctx context.Context, id string) (routing.Route, error) {
	r, err := c.route(ctx, id)
	if !errors.Is(err, ports.ErrNotFound) {
		return r, err
	}
	target, ok, merr := mapped(ctx, c.mappings, id)
	if merr != nil {
		return routing.Route{}, fmt.Errorf("read model mapping %s: %w", id, merr)
	}
	if !ok {
		return routing.Route{}, err
	}
	// One step only: a mapping's target is a model or alias, never
	// another mapping.
	r, err = c.route(ctx, target)
	if err != nil {
		return routing.Route{}, fmt.Errorf("target %s of mapped model %s: %w", target, id, err)
	}
	r.ID = id
	return r, nil
}

// route is Route without the mappings.
func (c *Catalog) route(ctx context.Context, id string) (routing.Route, error) {
	// Models first: most turns name one, and ids never name both.
	_, err := c.cfg.load(ctx, id)
	if err == nil {
		return routing.Route{ID: id, Strategy: routing.TargetsOrdered, Targets: []routing.TargetRef{{ModelID: id, Weight: 1}}}, nil
	}
	if !errors.Is(err, ports.ErrNotFound) || c.aliases == nil {
		return routing.Route{}, err
	}
	a, err := c.aliases.Alias(ctx, id)
	if err != nil {
		return routing.Route{}, fmt.Errorf("read alias %s: %w", id, err)
	}
	return aliasRoute(a), nil
}

// aliasRoute is the route of an alias.
func aliasRoute(a ports.Alias) routing.Route {
	r := routing.Route{ID: a.ID, Alias: true, Strategy: a.Strategy, FirstTokenTimeout: a.FirstTokenTimeout}
	for _, t := range a.Targets {
		r.Targets = append(r.Targets, routing.TargetRef{ModelID: t.ModelID, Weight: t.Weight, Drained: t.Drained})
	}
	return r
}

// Target resolves one target: its provider's enabled keys, its limits and
// the means to open a key for one attempt (refused for a key saved for
// another origin than the one the target's requests go to).
func (c *Catalog) Target(ctx context.Context, modelID string) (routing.Target, func(keyID string) (ports.Endpoint, error), error) {
	cfg, err := c.cfg.load(ctx, modelID)
	if err != nil {
		return routing.Target{}, nil, err
	}
	p, err := c.cfg.providerOf(ctx, cfg)
	if err != nil {
		return routing.Target{}, nil, err
	}
	t := routing.Target{ModelID: cfg.ID, UpstreamModel: cfg.ModelID, ProviderID: p.ID, ProviderName: p.Name,
		KeyStrategy: p.KeyStrategy, KeyRest: p.CoolDown,
		RequestsPerMinute: cfg.RequestsPerMinute, TokensPerMinute: cfg.TokensPerMinute}
	if t.ProviderName == "" {
		t.ProviderName = cfg.ProviderID
	}
	keys := map[string]ports.ProviderKey{}
	for _, k := range usableKeys(p) {
		if k.Enabled {
			t.Keys = append(t.Keys, routing.Key{ID: k.ID, Weight: k.Weight})
			keys[k.ID] = k
		}
	}
	open := func(keyID string) (ports.Endpoint, error) {
		k, ok := keys[keyID]
		if !ok {
			return ports.Endpoint{}, fmt.Errorf("key %s of provider %s: %w", keyID, p.ID, ports.ErrNotFound)
		}
		return c.seal.endpointOf(cfg, p, k)
	}
	return t, open, nil
}

// Endpoint resolves a Cursor model id into the endpoint a turn starts
// from: it names the route (the router picks target and key per attempt)
// and describes the route's first target, without any key. An unknown id
// is ports.ErrNotFound, and a model (or an alias's first target) of a
// fill-in-the-middle protocol ports.ErrFillInModel: it cannot hold the
// conversation a turn is. The configuration returned is the model's, or for
// an alias its first target's under the alias's name, id and publishing. A
// Cursor model id mapped onto a model or alias resolves as its target, the
// endpoint still naming the Cursor id as its route (see Route).
func (c *Catalog) Endpoint(ctx context.Context, id string) (ports.Endpoint, ports.ModelConfig, error) {
	return c.endpoint(ctx, id, false)
}

// TabEndpoint is Endpoint for Cursor Tab, which a model of any protocol
// may serve: a fill-in-the-middle model as well as a chat model.
func (c *Catalog) TabEndpoint(ctx context.Context, id string) (ports.Endpoint, ports.ModelConfig, error) {
	return c.endpoint(ctx, id, true)
}

// endpoint resolves id; anyProtocol admits fill-in-the-middle models.
func (c *Catalog) endpoint(ctx context.Context, id string, anyProtocol bool) (ports.Endpoint, ports.ModelConfig, error) {
	r, err := c.Route(ctx, id)
	if err != nil {
		return ports.Endpoint{}, ports.ModelConfig{}, err
	}
	if len(r.Targets) == 0 {
		return ports.Endpoint{}, ports.ModelConfig{}, fmt.Errorf("alias %s has no target: %w", id, ports.ErrNotFound)
	}
	first := r.Targets[0].ModelID
	for _, t := range r.Targets {
		if !t.Drained {
			first = t.ModelID
			break
		}
	}
	cfg, err := c.cfg.load(ctx, first)
	if err != nil && r.Alias {
		return ports.Endpoint{}, ports.ModelConfig{}, fmt.Errorf("first target of alias %s: %w", id, err)
	}
	if err != nil {
		return ports.Endpoint{}, ports.ModelConfig{}, err
	}
	if !anyProtocol && fillIn(c.seal.protocols, cfg.ProviderKind) {
		return ports.Endpoint{}, ports.ModelConfig{}, fmt.Errorf("model %s (%s) is a fill-in-the-middle model for Cursor Tab and cannot run an Agent turn; choose a chat model: %w",
			id, cfg.DisplayName, ports.ErrFillInModel)
	}
	ep := ports.Endpoint{Route: id, Kind: cfg.ProviderKind}
	if u, err := c.seal.protocols.RequestURL(cfg.ProviderKind, cfg.BaseURL, cfg.ModelID, cfg.UseFullURL); err == nil {
		ep.URL = u
	}
	if r.Alias {
		alias := id
		if target, ok, err := mapped(ctx, c.mappings, id); err == nil && ok {
			alias = target
		}
		a, err := c.aliases.Alias(ctx, alias)
		if err != nil {
			return ports.Endpoint{}, ports.ModelConfig{}, fmt.Errorf("read alias %s: %w", alias, err)
		}
		cfg = aliasConfig(a, cfg)
	}
	return ep, cfg, nil
}

// aliasConfig is how an alias appears to Cursor: its own id, name and
// publishing, the rest of its first target's configuration.
func aliasConfig(a ports.Alias, first ports.ModelConfig) ports.ModelConfig {
	first.ID, first.DisplayName, first.GroupName, first.Tooltip = a.ID, a.DisplayName, a.GroupName, a.Tooltip
	first.Enabled, first.SortOrder, first.CreatedAt, first.UpdatedAt = a.Enabled, a.SortOrder, a.CreatedAt, a.UpdatedAt
	return first
}
