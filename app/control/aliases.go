package control

import (
	"context"
	"errors"
	"fmt"
	"slices"
	"strings"
	"time"

	"keygate/domain/routing"
	"keygate/ports"
)

// Limits of an alias.
const (
	// MaxAliasTargets bounds the targets of one alias.
	MaxAliasTargets = 16
	// MaxTargetWeight bounds a target's weight.
	MaxTargetWeight = 1000
	// MaxFirstTokenTimeout bounds an alias's first-token timeout.
	MaxFirstTokenTimeout = 10 * time.Minute
)

// AliasSettings are the editable fields of an alias.
type AliasSettings struct {
	DisplayName string
	GroupName   string
	Tooltip     string
	// Strategy zero means ordered.
	Strategy          routing.TargetStrategy
	FirstTokenTimeout time.Duration
	// Targets in order; each names a model configuration once.
	Targets []ports.AliasTarget
}

// Alias is a stored alias as the console may see it, each target with its
// model's name and shared health.
type Alias struct {
	Alias   ports.Alias
	Targets []AliasTargetView
}

// AliasTargetView is one target of an alias.
type AliasTargetView struct {
	ports.AliasTarget
	// DisplayName and ProviderName name the target's model and provider;
	// empty when the model is gone.
	DisplayName  string
	ProviderName string
	Health       routing.Health
	Resting      bool
}

// normalize checks s against the stored models (all).
func (s AliasSettings) normalize(all []ports.ModelConfig) (AliasSettings, error) {
	s.DisplayName, s.GroupName = strings.TrimSpace(s.DisplayName), strings.TrimSpace(s.GroupName)
	if s.DisplayName == "" {
		return s, invalid("display_name", "name the alias as Cursor's model picker should show it")
	}
	for _, c := range []struct {
		field, v string
		limit    int
	}{{"display_name", s.DisplayName, MaxDisplayName}, {"group_name", s.GroupName, MaxGroupName}} {
		if err := checkText(c.field, c.v, c.limit); err != nil {
			return s, err
		}
	}
	if err := checkLen("tooltip", s.Tooltip, MaxTooltip); err != nil {
		return s, err
	}
	if s.Strategy == 0 {
		s.Strategy = routing.TargetsOrdered
	}
	if s.FirstTokenTimeout < 0 || s.FirstTokenTimeout > MaxFirstTokenTimeout {
		return s, invalid("first_token_timeout", "use a duration between 0 (wait as long as the provider client does) and 10 minutes")
	}
	if len(s.Targets) == 0 {
		return s, invalid("targets", "an alias needs at least one target model")
	}
	if len(s.Targets) > MaxAliasTargets {
		return s, invalid("targets", fmt.Sprintf("at most %d targets per alias", MaxAliasTargets))
	}
	known := map[string]bool{}
	for _, c := range all {
		known[c.ID] = true
	}
	seen := map[string]bool{}
	for i, t := range s.Targets {
		if !known[t.ModelID] {
			return s, invalid("targets", fmt.Sprintf("target %d names no configured model; reload the page and try again", i+1))
		}
		if seen[t.ModelID] {
			return s, invalid("targets", "name each model once")
		}
		seen[t.ModelID] = true
		if t.Weight < 0 || t.Weight > MaxTargetWeight {
			return s, invalid("targets", fmt.Sprintf("use weights between 1 and %d, or 0 for 1", MaxTargetWeight))
		}
		s.Targets[i].Weight = max(t.Weight, 1)
	}
	return s, nil
}

// AliasesOptions are the dependencies of [Aliases].
type AliasesOptions struct {
	// Aliases holds the aliases; nil for none (lists are empty, writes
	// refused).
	Aliases ports.AliasStore
	// Models and Providers name each target's model and provider.
	Models    ports.ModelConfigStore
	Providers ports.ProviderStore
	// Health is the shared health of targets the console shows; nil
	// shows none.
	Health ports.RouteHealth
	// NewID makes alias ids; nil uses 8 random bytes in hex.
	NewID func() string
	// Now is the clock that tells a resting target; nil uses time.Now.
	Now func() time.Time
}

// Aliases manages the aliases that route one picker entry to several
// models. It is safe for concurrent use; concurrent edits of the same
// alias are last-writer-wins.
type Aliases struct {
	store  ports.AliasStore
	health ports.RouteHealth
	cfg    configs
	newID  func() string
	now    func() time.Time
}

// NewAliases returns the alias use cases.
func NewAliases(o AliasesOptions) *Aliases {
	return &Aliases{store: o.Aliases, health: o.Health, cfg: configs{models: o.Models, providers: o.Providers},
		newID: orRandomID(o.NewID), now: orNow(o.Now)}
}

// List returns every alias in publishing order.
func (al *Aliases) List(ctx context.Context) ([]Alias, error) {
	if al.store == nil {
		return nil, nil
	}
	all, err := al.store.Aliases(ctx)
	if err != nil {
		return nil, fmt.Errorf("list aliases: %w", err)
	}
	return al.aliasViews(ctx, all...)
}

// Get returns one alias, or ErrNotFound.
func (al *Aliases) Get(ctx context.Context, id string) (Alias, error) {
	a, err := al.loadAlias(ctx, id)
	if err != nil {
		return Alias{}, err
	}
	vs, err := al.aliasViews(ctx, a)
	if err != nil {
		return Alias{}, err
	}
	return vs[0], nil
}

// Create stores an alias after the last one.
func (al *Aliases) Create(ctx context.Context, s AliasSettings, enabled bool) (Alias, error) {
	if al.store == nil {
		return Alias{}, errors.New("create alias: no alias store")
	}
	models, err := al.cfg.models.ModelConfigs(ctx)
	if err != nil {
		return Alias{}, fmt.Errorf("create alias: %w", err)
	}
	if s, err = s.normalize(models); err != nil {
		return Alias{}, err
	}
	all, err := al.store.Aliases(ctx)
	if err != nil {
		return Alias{}, fmt.Errorf("create alias: %w", err)
	}
	order := 0
	for _, a := range all {
		order = max(order, a.SortOrder+1)
	}
	a := ports.Alias{ID: al.newID(), SortOrder: order, Enabled: enabled}
	s.applyTo(&a)
	return al.putAlias(ctx, a)
}

// Update replaces the editable fields of an alias (its targets, in
// their new order, included).
func (al *Aliases) Update(ctx context.Context, id string, s AliasSettings) (Alias, error) {
	a, err := al.loadAlias(ctx, id)
	if err != nil {
		return Alias{}, err
	}
	models, err := al.cfg.models.ModelConfigs(ctx)
	if err != nil {
		return Alias{}, fmt.Errorf("update alias: %w", err)
	}
	if s, err = s.normalize(models); err != nil {
		return Alias{}, err
	}
	s.applyTo(&a)
	return al.putAlias(ctx, a)
}

// SetEnabled publishes an alias to Cursor or hides it.
func (al *Aliases) SetEnabled(ctx context.Context, id string, enabled bool) (Alias, error) {
	a, err := al.loadAlias(ctx, id)
	if err != nil {
		return Alias{}, err
	}
	a.Enabled = enabled
	return al.putAlias(ctx, a)
}

// DrainTarget takes a target out of an alias (drained) or puts it back:
// a drained target takes no call, and conversations that stayed on it move
// on their next turn, the move recorded as the cause of the cache break.
func (al *Aliases) DrainTarget(ctx context.Context, id, modelID string, drained bool) (Alias, error) {
	a, err := al.loadAlias(ctx, id)
	if err != nil {
		return Alias{}, err
	}
	i := slices.IndexFunc(a.Targets, func(t ports.AliasTarget) bool { return t.ModelID == modelID })
	if i < 0 {
		return Alias{}, fmt.Errorf("target %s of alias %s: %w", modelID, id, ErrNotFound)
	}
	a.Targets[i].Drained = drained
	return al.putAlias(ctx, a)
}

// Delete removes an alias, or returns ErrNotFound.
func (al *Aliases) Delete(ctx context.Context, id string) error {
	if al.store == nil {
		return fmt.Errorf("alias %s: %w", id, ErrNotFound)
	}
	if err := al.store.DeleteAlias(ctx, id); err != nil {
		return fmt.Errorf("delete alias %s: %w", id, err)
	}
	return nil
}

func (s AliasSettings) applyTo(a *ports.Alias) {
	a.DisplayName, a.GroupName, a.Tooltip = s.DisplayName, s.GroupName, s.Tooltip
	a.Strategy, a.FirstTokenTimeout = s.Strategy, s.FirstTokenTimeout
	a.Targets = slices.Clone(s.Targets)
}

func (al *Aliases) loadAlias(ctx context.Context, id string) (ports.Alias, error) {
	if al.store == nil {
		return ports.Alias{}, fmt.Errorf("alias %s: %w", id, ErrNotFound)
	}
	a, err := al.store.Alias(ctx, id)
	if err != nil {
		return ports.Alias{}, fmt.Errorf("load alias %s: %w", id, err)
	}
	return a, nil
}

func (al *Aliases) putAlias(ctx context.Context, a ports.Alias) (Alias, error) {
	if err := al.store.PutAlias(ctx, a); err != nil {
		return Alias{}, fmt.Errorf("store alias %s: %w", a.ID, err)
	}
	return al.Get(ctx, a.ID)
}

// aliasViews names each alias's targets and reads their shared health.
func (al *Aliases) aliasViews(ctx context.Context, as ...ports.Alias) ([]Alias, error) {
	models, err := al.cfg.models.ModelConfigs(ctx)
	if err != nil {
		return nil, fmt.Errorf("list models: %w", err)
	}
	provs, err := al.cfg.providersByID(ctx)
	if err != nil {
		return nil, err
	}
	byID := map[string]ports.ModelConfig{}
	for _, c := range models {
		byID[c.ID] = c
	}
	health := map[string]routing.Health{}
	if al.health != nil {
		var subjects []string
		for _, a := range as {
			for _, t := range a.Targets {
				subjects = append(subjects, routing.TargetSubject(t.ModelID))
			}
		}
		if health, err = al.health.Health(ctx, subjects); err != nil {
			return nil, fmt.Errorf("read target health: %w", err)
		}
	}
	now := al.now()
	out := make([]Alias, len(as))
	for i, a := range as {
		out[i].Alias = a
		for _, t := range a.Targets {
			c := byID[t.ModelID]
			h := health[routing.TargetSubject(t.ModelID)]
			out[i].Targets = append(out[i].Targets, AliasTargetView{AliasTarget: t, DisplayName: c.DisplayName,
				ProviderName: provs[c.ProviderID].Name, Health: h, Resting: h.Cooling(now)})
		}
	}
	return out, nil
}
