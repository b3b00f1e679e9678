package control

import (
	"context"
	"errors"
	"fmt"

	"keygate/ports"
)

// Publishing is what Cursor sees of the configuration: the picker's
// entries, whether Keygate serves a model id, and the names of models and
// aliases. It only reads, and is safe for concurrent use.
type Publishing struct {
	models    ports.ModelConfigStore
	aliases   ports.AliasStore
	protocols ports.ProviderProtocols
	// mappings put Cursor's model ids on Keygate models (MapWith).
	mappings ports.ModelMappingStore
}

// NewPublishing returns what is published of models and aliases (nil:
// no aliases); protocols say which kinds are fill-in-the-middle (nil: none).
func NewPublishing(models ports.ModelConfigStore, aliases ports.AliasStore, protocols ports.ProviderProtocols) *Publishing {
	return &Publishing{models: models, aliases: aliases, protocols: protocols}
}

// Published are the models Cursor's picker offers: the enabled models in
// publishing order (the first is the default), then the enabled aliases in
// theirs, each shown with its first target's configuration. A model of a
// fill-in-the-middle protocol is left out, and so is an alias shown with
// one: it serves Cursor Tab and cannot run the Agent the picker chooses for.
func (pb *Publishing) Published(ctx context.Context) ([]ports.ModelConfig, error) {
	cfgs, err := pb.models.ModelConfigs(ctx)
	if err != nil {
		return nil, fmt.Errorf("list published models: %w", err)
	}
	out := make([]ports.ModelConfig, 0, len(cfgs))
	byID := make(map[string]ports.ModelConfig, len(cfgs))
	for _, c := range cfgs {
		byID[c.ID] = c
		if c.Enabled && !fillIn(pb.protocols, c.ProviderKind) {
			out = append(out, c)
		}
	}
	if pb.aliases == nil {
		return out, nil
	}
	aliases, err := pb.aliases.Aliases(ctx)
	if err != nil {
		return nil, fmt.Errorf("list published aliases: %w", err)
	}
	for _, a := range aliases {
		if first, ok := byID[firstTarget(a)]; ok && a.Enabled && !fillIn(pb.protocols, first.ProviderKind) {
			out = append(out, aliasConfig(a, first))
		}
	}
	return out, nil
}

// firstTarget is the model id an alias is shown with: its first target
// that is not drained, else its first.
func firstTarget(a ports.Alias) string {
	for _, t := range a.Targets {
		if !t.Drained {
			return t.ModelID
		}
	}
	if len(a.Targets) > 0 {
		return a.Targets[0].ModelID
	}
	return ""
}

// Serves reports whether Keygate serves the turns of a model id: an
// enabled configured model or alias. A fill-in-the-middle model is served
// too, so that a turn naming it is refused by Keygate with a clear error
// (Catalog.Endpoint) instead of reaching Cursor under an id Cursor does
// not know. A store error counts as served, so
// that the run layer reports the error rather than the turn going to
// Cursor under a model id Cursor does not know.
//
// It is the one routing decision between Keygate and Cursor: a Cursor
// model id an administrator mapped (MapWith) is served when its target
// is, and any other id Keygate does not know goes to Cursor.
func (pb *Publishing) Serves(ctx context.Context, id string) bool {
	if pb.serves(ctx, id) {
		return true
	}
	target, ok, err := mapped(ctx, pb.mappings, id)
	if err != nil {
		return true
	}
	return ok && pb.serves(ctx, target)
}

// serves reports whether id is an enabled model or alias (Serves).
func (pb *Publishing) serves(ctx context.Context, id string) bool {
	c, err := pb.models.ModelConfig(ctx, id)
	if errors.Is(err, ports.ErrNotFound) && pb.aliases != nil {
		a, err := pb.aliases.Alias(ctx, id)
		if errors.Is(err, ports.ErrNotFound) {
			return false
		}
		return err != nil || a.Enabled
	}
	if errors.Is(err, ports.ErrNotFound) {
		return false
	}
	return err != nil || c.Enabled
}

// Names returns the display names of every model and alias by picker id,
// for lists that name what a conversation used.
func (pb *Publishing) Names(ctx context.Context) (map[string]string, error) {
	cfgs, err := pb.models.ModelConfigs(ctx)
	if err != nil {
		return nil, fmt.Errorf("name models: %w", err)
	}
	out := make(map[string]string, len(cfgs))
	for _, c := range cfgs {
		out[c.ID] = c.DisplayName
	}
	if pb.aliases == nil {
		return out, nil
	}
	aliases, err := pb.aliases.Aliases(ctx)
	if err != nil {
		return nil, fmt.Errorf("name aliases: %w", err)
	}
	for _, a := range aliases {
		out[a.ID] = a.DisplayName
	}
	return out, nil
}
